package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ManualTicker;
import dev.rdmafutures.conformance.ProviderFixture;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What an idle soft connection costs (issue 16: thousands of them in one runtime): once its data path is quiet it
 * holds no direct buffer of its own; the poller's pools serve whichever connection has bytes to parse or send; and
 * it arms no timer, so the poller has nothing to do for it.
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
        await(connectPair(listener).client().read(sink.slice(0, 8), served.remote(), 0, OperationFlags.NONE));
        long before = directBuffers();
        for (int i = 0; i < CONNECTIONS; i++) {
            // one READ each: a request parsed on the server, a response parsed on the client
            assertThat(await(connectPair(listener).client().read(sink.slice(0, 8), served.remote(), 0,
                    OperationFlags.NONE)).bytes()).isEqualTo(8);
        }
        // An inbound staging buffer (8 KiB) kept for life by each end would make two per connection.
        assertThat(directBuffers() - before).as("direct buffers allocated for %d idle connections", CONNECTIONS)
                .isLessThan(CONNECTIONS / 4);
    }

    @Test
    void idleConnectionsArmNoTimers() throws Exception {
        // A liveness deadline of 40 ms would look at each connection every 10 ms if idle ones were watched. Both
        // runtimes count on one clock this test moves: a second of it passes in 10 ms steps without waiting for it.
        // Their pollers yield instead of sleeping when idle, so that each step's duty cycle comes at once; a cycle
        // counts as work only when it did some.
        ManualTicker ticker = new ManualTicker();
        RdmaRuntime quickServer = closeLater(fixture().runtimeBuilder().livenessTimeout(Duration.ofMillis(40))
                .ticker(ticker).idleStrategy(IdleStrategy.YIELD).build());
        RdmaRuntime quickClient = closeLater(fixture().runtimeBuilder().livenessTimeout(Duration.ofMillis(40))
                .ticker(ticker).idleStrategy(IdleStrategy.YIELD).build());
        RdmaListener listener = closeLater(quickServer.listen(anyPort()));
        MemoryRegion served = quickServer.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE,
                Access.REMOTE_READ);
        MemoryRegion sink = quickClient.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE);
        for (int i = 0; i < CONNECTIONS; i++) {
            CompletableFuture<RdmaConnection> c = quickClient.connector().connect(listener.localAddress()).start();
            closeLater(await(await(listener.next()).accept()));
            RdmaConnection connection = closeLater(await(c));
            await(connection.read(sink.slice(0, 8), served.remote(), 0, OperationFlags.NONE)); // armed the watch once
        }
        advance(ticker, 10, quickClient, quickServer); // the watches armed by the READs look, find nothing owed, stop
        long before = workCycles(quickClient) + workCycles(quickServer);
        advance(ticker, 100, quickClient, quickServer);
        long during = workCycles(quickClient) + workCycles(quickServer) - before;
        // Watched, each runtime would run due checks in every step: 200 cycles with work at least.
        assertThat(during).as("poller cycles with work over 1 s of the clock with %d idle connections", CONNECTIONS)
                .isLessThan(CONNECTIONS);
    }

    /** Moves {@code ticker} {@code steps} times by 10 ms, each time letting both runtimes' pollers see it. */
    private static void advance(ManualTicker ticker, int steps, RdmaRuntime a, RdmaRuntime b)
            throws InterruptedException {
        for (int i = 0; i < steps; i++) {
            ticker.advance(Duration.ofMillis(10));
            ManualTicker.awaitDutyCycles(a, 1);
            ManualTicker.awaitDutyCycles(b, 1);
        }
    }

    private static long workCycles(RdmaRuntime runtime) {
        return runtime.metrics().pollers().stream().mapToLong(PollerMetrics::workCycles).sum();
    }
}
