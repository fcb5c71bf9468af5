package dev.rdmafutures.netty.testsuite;

import io.netty.testsuite.transport.socket.SocketFileRegionTest;
import org.junit.jupiter.api.Disabled;

@Disabled("an RDMA channel refuses FileRegions: a file's bytes are not copied into registered memory yet")
class RdmaSocketFileRegionTest extends SocketFileRegionTest {
}
