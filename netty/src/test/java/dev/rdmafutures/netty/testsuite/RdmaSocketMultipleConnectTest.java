package dev.rdmafutures.netty.testsuite;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketMultipleConnectTest;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.util.List;

public class RdmaSocketMultipleConnectTest extends SocketMultipleConnectTest {
    /** Where it runs: the host build's permutation unless a subclass (the VM stage's) names another. */
    protected RdmaSocketTestPermutation permutation() {
        return RdmaSocketTestPermutation.INSTANCE;
    }

    @Override
    protected List<BootstrapComboFactory<ServerBootstrap, Bootstrap>> newFactories() {
        return permutation().socket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return permutation().newSocketAddress();
    }

    /**
     * Netty's, with the server bound to {@link #newSocketAddress()} rather than to loopback: the same on the host,
     * and the device's own address in the VM, where rdma_cm on rxe has no loopback.
     */
    @Override
    public void testMultipleConnect(ServerBootstrap sb, Bootstrap cb) throws Exception {
        Channel sc = null;
        Channel cc = null;
        try {
            sb.childHandler(new ChannelInboundHandlerAdapter());
            sc = sb.bind(newSocketAddress()).syncUninterruptibly().channel();

            cb.handler(new ChannelInboundHandlerAdapter());
            cc = cb.register().syncUninterruptibly().channel();
            cc.connect(sc.localAddress()).syncUninterruptibly();
            ChannelFuture connectFuture2 = cc.connect(sc.localAddress()).await();
            assertTrue(connectFuture2.cause() instanceof AlreadyConnectedException);
        } finally {
            if (cc != null) {
                cc.close();
            }
            if (sc != null) {
                sc.close();
            }
        }
    }
}
