package dev.rdmafutures.netty.testsuite;

import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.netty.RdmaEventLoopGroup;
import dev.rdmafutures.netty.RdmaServerSocketChannel;
import dev.rdmafutures.netty.RdmaSocketChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketTestPermutation;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Netty's socket test permutations with RDMA channels on both ends, the way Netty's epoll and io_uring transports
 * subclass them, on the runtimes {@code runtime} configures and bound to {@code address}. {@link #INSTANCE} is the
 * host build's: provider {@code soft} (unless {@code -Drdmafutures.netty.provider} names another) on loopback. The VM
 * stage makes its own, the verbs provider on a device and that device's address: rdma_cm on rxe cannot use loopback,
 * and the VM launcher passes no system properties.
 *
 * <p>Every {@code RdmaSocket*Test} takes its permutation from {@code permutation()}, and its bind address from
 * {@link #newSocketAddress()}; a subclass that overrides {@code permutation()} runs that test elsewhere.
 */
public final class RdmaSocketTestPermutation extends SocketTestPermutation {
    /** The host build's: {@code soft}, or {@code -Drdmafutures.netty.provider}, on loopback. */
    public static final RdmaSocketTestPermutation INSTANCE = new RdmaSocketTestPermutation(
            builder -> builder.provider(System.getProperty("rdmafutures.netty.provider", "soft")),
            () -> NetUtil.LOCALHOST);

    private static final int LOOPS = 2;
    private final Consumer<RdmaRuntime.Builder> runtime;
    private final Supplier<InetAddress> address;
    /**
     * Servers and the channels they accept share one group of {@value #LOOPS} loops (an accepted channel lives on the
     * loop its connection was dealt to, each in turn); clients have their own, as in Netty's NIO permutations, so
     * that a test that blocks one side's event loop does not stop the other side. Made on first use: a permutation
     * for a device is also built where there is none (on the host, for a test class that runs in the VM).
     */
    private EventLoopGroup serverGroup;
    private EventLoopGroup clientGroup;

    /**
     * Channels on runtimes that {@code runtime} configures (provider, its options, timeouts; see
     * {@link RdmaEventLoopGroup#RdmaEventLoopGroup(int, Consumer)}), servers bound to {@code address}.
     */
    public RdmaSocketTestPermutation(Consumer<RdmaRuntime.Builder> runtime, Supplier<InetAddress> address) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.address = Objects.requireNonNull(address, "address");
    }

    /** The runtime configuration, for a group of one's own (gRPC's, say). */
    public Consumer<RdmaRuntime.Builder> runtime() {
        return runtime;
    }

    /** The address servers bind and clients connect to. */
    public InetAddress address() {
        return address.get();
    }

    /** {@link #address()} with an ephemeral port: what the suite's {@code newSocketAddress()} returns. */
    public InetSocketAddress newSocketAddress() {
        return new InetSocketAddress(address(), 0);
    }

    /** A new group of {@code threads} loops on this permutation's runtimes; the caller shuts it down. */
    public EventLoopGroup newGroup(int threads) {
        return new RdmaEventLoopGroup(threads, runtime);
    }

    private synchronized EventLoopGroup serverGroup() {
        if (serverGroup == null) {
            serverGroup = newGroup(LOOPS);
        }
        return serverGroup;
    }

    private synchronized EventLoopGroup clientGroup() {
        if (clientGroup == null) {
            clientGroup = newGroup(LOOPS);
        }
        return clientGroup;
    }

    @Override
    public List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> socket() {
        return combo(serverSocket(), clientSocket());
    }

    @Override
    public List<BootstrapFactory<ServerBootstrap>> serverSocket() {
        return List.of(() -> new ServerBootstrap().group(serverGroup(), serverGroup())
                .channel(RdmaServerSocketChannel.class));
    }

    @Override
    public List<BootstrapFactory<Bootstrap>> clientSocket() {
        return List.of(() -> new Bootstrap().group(clientGroup()).channel(RdmaSocketChannel.class));
    }
}
