package dev.rdmafutures.netty.testsuite;

import io.netty.testsuite.transport.socket.SocketRstTest;
import org.junit.jupiter.api.Disabled;

@Disabled("TCP only: it checks the reset a socket closed with SO_LINGER 0 sends and the peer's reading of it")
class RdmaSocketRstTest extends SocketRstTest {
}
