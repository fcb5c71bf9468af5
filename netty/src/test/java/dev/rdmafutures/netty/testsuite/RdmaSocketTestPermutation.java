package dev.rdmafutures.netty.testsuite;

import dev.rdmafutures.netty.RdmaEventLoopGroup;
import dev.rdmafutures.netty.RdmaServerSocketChannel;
import dev.rdmafutures.netty.RdmaSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketTestPermutation;
import java.util.List;

/**
 * Netty's socket test permutations with RDMA channels on both ends, the way Netty's epoll and io_uring transports
 * subclass them. The provider is {@code soft} unless {@code -Drdmafutures.netty.provider} names another (the VM stage
 * runs the suite on verbs).
 */
final class RdmaSocketTestPermutation extends SocketTestPermutation {
    static final RdmaSocketTestPermutation INSTANCE = new RdmaSocketTestPermutation();
    private static final String PROVIDER = System.getProperty("rdmafutures.netty.provider", "soft");
    /**
     * Servers and the channels they accept share one group (an accepted channel stays on the loop that accepted it);
     * clients have their own, as in Netty's NIO permutations, so that a test that blocks one side's event loop does
     * not stop the other side.
     */
    static final EventLoopGroup SERVER_GROUP = new RdmaEventLoopGroup(1, builder -> builder.provider(PROVIDER));
    static final EventLoopGroup CLIENT_GROUP = new RdmaEventLoopGroup(1, builder -> builder.provider(PROVIDER));

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return combo(serverSocket(), clientSocket());
    }

    @Override
    public List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        return List.of(() -> new ServerBootstrap().group(SERVER_GROUP, SERVER_GROUP).channel(RdmaServerSocketChannel.class));
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocket() {
        return List.of(() -> new Bootstrap().group(CLIENT_GROUP).channel(RdmaSocketChannel.class));
    }
}
