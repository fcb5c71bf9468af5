package dev.rdmafutures.netty.testsuite;

import io.netty.testsuite.transport.socket.SocketShutdownOutputBySelfTest;
import org.junit.jupiter.api.Disabled;

@Disabled("its server is a plain java.net.ServerSocket, which an RDMA client cannot reach: it speaks no MPA")
class RdmaSocketShutdownOutputBySelfTest extends SocketShutdownOutputBySelfTest {
}
