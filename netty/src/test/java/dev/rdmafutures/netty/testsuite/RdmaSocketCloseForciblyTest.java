package dev.rdmafutures.netty.testsuite;

import io.netty.testsuite.transport.socket.SocketCloseForciblyTest;
import org.junit.jupiter.api.Disabled;

@Disabled("TCP only: it sets SO_LINGER 0 so that closeForcibly() sends a reset; an RDMA channel has no linger")
class RdmaSocketCloseForciblyTest extends SocketCloseForciblyTest {
}
