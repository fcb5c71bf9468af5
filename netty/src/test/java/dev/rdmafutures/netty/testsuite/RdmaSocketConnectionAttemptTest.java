package dev.rdmafutures.netty.testsuite;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.netty.bootstrap.Bootstrap;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketConnectionAttemptTest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

class RdmaSocketConnectionAttemptTest extends SocketConnectionAttemptTest {
    /** The address Netty's suite expects no answer from (TEST-NET-2, RFC 5737). */
    private static final InetSocketAddress UNROUTABLE = new InetSocketAddress("198.51.100.254", 65535);

    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return RdmaSocketTestPermutation.INSTANCE.clientSocket();
    }

    @Test
    @Override
    public void testConnectCancellation(TestInfo testInfo) throws Throwable {
        assumeFalse(answers(UNROUTABLE), "this network answers TCP connects to " + UNROUTABLE + " (an intercepting "
                + "proxy), so no connect to it stays pending long enough to cancel");
        super.testConnectCancellation(testInfo);
    }

    private static boolean answers(InetSocketAddress address) {
        try (Socket socket = new Socket()) {
            socket.connect(address, 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
