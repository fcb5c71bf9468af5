package dev.rdmafutures.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketHalfClosedTest;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

public class RdmaSocketHalfClosedTest extends SocketHalfClosedTest {
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

    @Test
    @Disabled("TCP only: it relies on SO_LINGER 0 turning a close into a reset that fails the peer's next write while "
            + "its input stays readable, and blocks an event loop meanwhile; an RDMA disconnect ends both directions")
    @Override
    public void testAutoCloseFalseDoesShutdownOutput(TestInfo testInfo) {
    }

    @Test
    @Disabled("TCP only: SO_LINGER and the FIN_WAIT2 state have no RDMA counterpart")
    @Override
    public void testHalfClosureReceiveDataOnFinalWait2StateWhenSoLingerSet(TestInfo testInfo) {
    }
}
