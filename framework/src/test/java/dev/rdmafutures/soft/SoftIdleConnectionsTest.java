package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * What an idle soft connection costs (issue 16: thousands of them in one runtime): once its data path is quiet it
 * holds no direct buffer of its own; the poller's pools serve whichever connection has bytes to parse or send.
 */
class SoftIdleConnectionsTest extends ConformanceSupport {
    private static final int CONNECTIONS = 64;

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    private static long directBuffers() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getCount).sum();
    }

    @Test
    void idleConnectionsThatMovedDataHoldNoDirectBuffers() {
        RdmaListener listener = listen();
        MemoryRegion served = server.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE, Access.REMOTE_READ);
        MemoryRegion sink = client.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE);
        // The first connection fills the pollers' pools (and NIO's per-thread buffers) once.
        await(connectPair(listener).client().read(sink, 0, served.remote(), 0, 8));
        long before = directBuffers();
        for (int i = 0; i < CONNECTIONS; i++) {
            // one READ each: a request parsed on the server, a response parsed on the client
            assertThat(await(connectPair(listener).client().read(sink, 0, served.remote(), 0, 8)).bytes()).isEqualTo(8);
        }
        // Each end used to keep an 8 KiB inbound staging buffer for life: two per connection.
        assertThat(directBuffers() - before).as("direct buffers allocated for %d idle connections", CONNECTIONS)
                .isLessThan(CONNECTIONS / 4);
    }
}
