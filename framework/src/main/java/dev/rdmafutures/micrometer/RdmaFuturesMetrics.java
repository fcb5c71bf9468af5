package dev.rdmafutures.micrometer;

import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RuntimeMetrics;
import dev.rdmafutures.Status;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a runtime's {@link RdmaRuntime#metrics()} to a Micrometer registry: operations posted, completed and failed
 * (tag {@code status}), bytes moved (tag {@code kind}: read, written, sent, received), connects, connect failures
 * (tag {@code status}), accepts, rejects, peer refusals and back-offs ({@code PeerFaultPolicy}), open connections, and
 * per poller (tag {@code poller}) duty cycles, cycles that found work, busy time and idle ratio; every meter tagged
 * with {@code provider} and {@code device}. Meters
 * read one snapshot per scrape (a snapshot younger than {@value #SNAPSHOT_MILLIS} ms is reused), so the data path
 * pays nothing for them. Meters hold the runtime as Micrometer holds what it tracks, weakly: they read while the
 * application holds the runtime, and the binder itself need not be kept. Needs {@code io.micrometer:micrometer-core}
 * on the class path, which RdmaFutures does not bring.
 *
 * <pre>{@code new RdmaFuturesMetrics(runtime).bindTo(registry);}</pre>
 */
public final class RdmaFuturesMetrics implements MeterBinder {
    static final long SNAPSHOT_MILLIS = 100;
    private static final String PREFIX = "rdmafutures.";

    private final RdmaRuntime runtime;
    private final Tags tags;
    private final Snapshots snapshots = new Snapshots();

    /** Binds {@code runtime}'s counters. */
    public RdmaFuturesMetrics(RdmaRuntime runtime) {
        this(runtime, Tags.empty());
    }

    /** Binds {@code runtime}'s counters with {@code extraTags} on every meter. */
    public RdmaFuturesMetrics(RdmaRuntime runtime, Iterable<Tag> extraTags) {
        this.runtime = runtime;
        this.tags = Tags.of("provider", runtime.providerName(), "device", runtime.adapterInfo().deviceName())
                .and(extraTags);
    }

    /**
     * The last snapshot of a runtime's counters. Meters hold it strongly and the runtime weakly, so it keeps no
     * reference to the runtime: a registry must not keep a dropped runtime alive.
     */
    private static final class Snapshots {
        /** The last reading and when it was taken, published together so no scrape sees one without the other. */
        private record Reading(RuntimeMetrics metrics, long takenAt) { }

        private volatile Reading last;

        /** {@code runtime}'s counters, at most {@value RdmaFuturesMetrics#SNAPSHOT_MILLIS} ms old. */
        RuntimeMetrics of(RdmaRuntime runtime) {
            long now = System.nanoTime();
            Reading current = last;
            if (current == null || now - current.takenAt() > TimeUnit.MILLISECONDS.toNanos(SNAPSHOT_MILLIS)) {
                current = new Reading(runtime.metrics(), now);
                last = current;
            }
            return current.metrics();
        }

        /**
         * What a meter reads from the runtime it tracks: {@code value} of the snapshot. The function holds these
         * snapshots and {@code value}, never the binder, which holds the runtime strongly.
         */
        ToDoubleFunction<RdmaRuntime> reading(ToDoubleFunction<RuntimeMetrics> value) {
            return runtime -> value.applyAsDouble(of(runtime));
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "operations.posted", "operations handed to a poller", Tags.empty(),
                m -> m.operations().posted());
        counter(registry, "operations.completed", "operations that completed successfully", Tags.empty(),
                m -> m.operations().completed());
        for (Status status : Status.values()) {
            if (status == Status.SUCCESS) {
                continue; // a post's acceptance, never a failure
            }
            counter(registry, "operations.failed", "operations that failed, by status", Tags.of("status",
                    status.name()),
                    m -> m.operations().failed(status));
            counter(registry, "connects.failed", "connections this side started that failed, by status",
                    Tags.of("status", status.name()), m -> m.connectFailures().getOrDefault(status, 0L));
        }
        bytes(registry, "read", OperationMetrics::bytesRead);
        bytes(registry, "written", OperationMetrics::bytesWritten);
        bytes(registry, "sent", OperationMetrics::bytesSent);
        bytes(registry, "received", OperationMetrics::bytesReceived);
        counter(registry, "connects", "connections this side started that were established", Tags.empty(),
                RuntimeMetrics::connects);
        counter(registry, "accepts", "connection requests accepted and established", Tags.empty(),
                RuntimeMetrics::accepts);
        counter(registry, "rejects", "connection requests this side rejected", Tags.empty(), RuntimeMetrics::rejects);
        counter(registry, "peer.refusals", "connection requests refused because their address was in a back-off",
                Tags.empty(), RuntimeMetrics::peerRefusals);
        counter(registry, "peer.backoffs", "back-offs started for peer addresses that made too many faults",
                Tags.empty(), RuntimeMetrics::peerBackOffs);
        counter(registry, "poller.errors", "errors the pollers contained", Tags.empty(), RuntimeMetrics::pollerErrors);
        gauge(registry, "connections.open", "connections established and not yet ended", Tags.empty(),
                m -> m.open());
        for (int i = 0; i < runtime.metrics().pollers().size(); i++) {
            int index = i;
            Tags poller = Tags.of("poller", runtime.metrics().pollers().get(i).name());
            counter(registry, "poller.cycles", "duty cycles run", poller, m -> m.pollers().get(index).dutyCycles());
            counter(registry, "poller.work.cycles", "duty cycles that found work", poller,
                    m -> m.pollers().get(index).workCycles());
            FunctionCounter.builder(PREFIX + "poller.busy", runtime,
                            snapshots.reading(m -> m.pollers().get(index).busy().toNanos() / 1e9))
                    .description("time spent in duty cycles that found work").baseUnit("seconds")
                    .tags(tags.and(poller)).register(registry);
            gauge(registry, "poller.idle.ratio", "share of the poller's uptime spent without work", poller,
                    m -> m.pollers().get(index).idleRatio());
        }
    }

    private void counter(MeterRegistry registry, String name, String description, Tags extra,
                         ToLongFunction<RuntimeMetrics> value) {
        FunctionCounter.builder(PREFIX + name, runtime, snapshots.reading(value::applyAsLong))
                .description(description).tags(tags.and(extra)).register(registry);
    }

    private void bytes(MeterRegistry registry, String kind, ToLongFunction<OperationMetrics> value) {
        FunctionCounter.builder(PREFIX + "operations.bytes", runtime,
                        snapshots.reading(m -> value.applyAsLong(m.operations())))
                .description("bytes completed operations moved, by kind").baseUnit("bytes")
                .tags(tags.and("kind", kind)).register(registry);
    }

    private void gauge(MeterRegistry registry, String name, String description, Tags extra,
                       ToDoubleFunction<RuntimeMetrics> value) {
        Gauge.builder(PREFIX + name, runtime, snapshots.reading(value))
                .description(description).tags(tags.and(extra)).register(registry);
    }
}
