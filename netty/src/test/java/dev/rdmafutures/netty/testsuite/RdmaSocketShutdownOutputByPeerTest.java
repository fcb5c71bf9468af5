package dev.rdmafutures.netty.testsuite;

import io.netty.testsuite.transport.socket.SocketShutdownOutputByPeerTest;
import org.junit.jupiter.api.Disabled;

@Disabled("its peer is a plain java.net.Socket, which an RDMA server cannot accept: it speaks no MPA")
class RdmaSocketShutdownOutputByPeerTest extends SocketShutdownOutputByPeerTest {
}
