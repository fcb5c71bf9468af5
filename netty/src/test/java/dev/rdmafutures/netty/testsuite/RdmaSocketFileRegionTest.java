package dev.rdmafutures.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapComboFactory;
import io.netty.testsuite.transport.socket.SocketFileRegionTest;
import java.net.SocketAddress;
import java.util.List;

public class RdmaSocketFileRegionTest extends SocketFileRegionTest {
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
}
