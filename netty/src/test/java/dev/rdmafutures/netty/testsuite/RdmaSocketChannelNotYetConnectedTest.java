package dev.rdmafutures.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

public class RdmaSocketChannelNotYetConnectedTest extends SocketChannelNotYetConnectedTest {
    /** Where it runs: the host build's permutation unless a subclass (the VM stage's) names another. */
    protected RdmaSocketTestPermutation permutation() {
        return RdmaSocketTestPermutation.INSTANCE;
    }

    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return permutation().clientSocket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return permutation().newSocketAddress();
    }

    @Test
    @Disabled("its server is a NIO ServerSocketChannel, which an RDMA client cannot reach: it speaks no MPA")
    @Override
    public void readMustBePendingUntilChannelIsActive(TestInfo info) {
    }
}
