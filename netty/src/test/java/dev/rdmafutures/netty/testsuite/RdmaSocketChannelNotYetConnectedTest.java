package dev.rdmafutures.netty.testsuite;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketChannelNotYetConnectedTest;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

class RdmaSocketChannelNotYetConnectedTest extends SocketChannelNotYetConnectedTest {
    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.clientSocket();
    }

    @Test
    @Disabled("its server is a NIO ServerSocketChannel, which an RDMA client cannot reach: it speaks no MPA")
    @Override
    public void readMustBePendingUntilChannelIsActive(TestInfo info) {
    }
}
