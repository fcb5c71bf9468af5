package dev.rdmafutures.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Micrometer binding reports what the runtime counts, tagged by provider, device and the caller's tags. */
class RdmaFuturesMetricsTest {
    @Test
    void aRegistryReadsTheRuntimesCounters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RdmaRuntime server = RdmaRuntime.builder().build();
             RdmaRuntime client = RdmaRuntime.builder().build()) {
            new RdmaFuturesMetrics(client, Tags.of("app", "test")).bindTo(registry);
            RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0));
            CompletableFuture<RdmaConnection> accepted = listener.next().thenCompose(ConnectionRequest::accept);
            RdmaConnection connection = client.connector().connect(listener.localAddress()).start()
                    .get(20, TimeUnit.SECONDS);
            accepted.get(20, TimeUnit.SECONDS);
            MemoryRegion local = client.register(ByteBuffer.allocateDirect(128), Access.LOCAL_WRITE);
            MemoryRegion remote = server.register(ByteBuffer.allocateDirect(128), Access.REMOTE_READ);
            for (int i = 0; i < 5; i++) {
                connection.read(local.slice(0, 100), remote.remote(), 0, OperationFlags.NONE).get(20, TimeUnit.SECONDS);
            }

            Tags runtime = Tags.of("provider", "soft", "device", client.adapterInfo().deviceName(), "app", "test");
            assertThat(registry.get("rdmafutures.operations.completed").tags(runtime).functionCounter().count())
                    .isEqualTo(5);
            assertThat(registry.get("rdmafutures.operations.bytes").tags(runtime).tag("kind", "read")
                    .functionCounter().count()).isEqualTo(500);
            assertThat(registry.get("rdmafutures.operations.failed").tag("status", "ACCESS_VIOLATION")
                    .functionCounter().count()).isZero();
            assertThat(registry.get("rdmafutures.connects").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("rdmafutures.connections.open").gauge().value()).isEqualTo(1);
            assertThat(registry.get("rdmafutures.poller.cycles").tag("poller", "rdmafutures-poller-0")
                    .functionCounter().count()).isPositive();
            assertThat(registry.get("rdmafutures.poller.idle.ratio").gauge().value()).isBetween(0.0, 1.0);
        }
    }

    /**
     * The binder is garbage once bound (the class Javadoc's example keeps no reference to it); Micrometer holds what a
     * meter reads only weakly, so the meters must read through the runtime, which the application holds.
     */
    @Test
    void metersOutliveTheBinder() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RdmaRuntime server = RdmaRuntime.builder().build();
             RdmaRuntime client = RdmaRuntime.builder().build()) {
            WeakReference<RdmaFuturesMetrics> binder = bind(client, registry);
            RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0));
            CompletableFuture<RdmaConnection> accepted = listener.next().thenCompose(ConnectionRequest::accept);
            client.connector().connect(listener.localAddress()).start().get(20, TimeUnit.SECONDS);
            accepted.get(20, TimeUnit.SECONDS);

            awaitCollected(binder);

            assertThat(registry.get("rdmafutures.connects").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("rdmafutures.connections.open").gauge().value()).isEqualTo(1);
        }
    }

    /**
     * A registry holds a bound runtime weakly, as Micrometer holds what it tracks: it does not keep a dropped one,
     * whose meters were read (so the snapshot they share holds a reading) before it was closed.
     */
    @Test
    void aRegistryDoesNotKeepADroppedRuntime() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WeakReference<RdmaRuntime> dropped = bindReadAndClose(registry);

        awaitCollected(dropped);

        assertThat(registry.get("rdmafutures.connections.open").gauge().value()).isNaN();
    }

    private static WeakReference<RdmaFuturesMetrics> bind(RdmaRuntime runtime, SimpleMeterRegistry registry) {
        RdmaFuturesMetrics binder = new RdmaFuturesMetrics(runtime);
        binder.bindTo(registry);
        return new WeakReference<>(binder);
    }

    private static WeakReference<RdmaRuntime> bindReadAndClose(SimpleMeterRegistry registry) {
        RdmaRuntime runtime = RdmaRuntime.builder().build();
        new RdmaFuturesMetrics(runtime).bindTo(registry);
        assertThat(registry.get("rdmafutures.connections.open").gauge().value()).isZero();
        runtime.close();
        return new WeakReference<>(runtime);
    }

    /** Runs full collections (at least one) until {@code reference} is cleared, for 10 s at most. */
    private static void awaitCollected(WeakReference<?> reference) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            System.gc();
        } while (reference.get() != null && System.nanoTime() < deadline);
        assertThat(reference.get()).as("collected within 10 s").isNull();
    }
}
