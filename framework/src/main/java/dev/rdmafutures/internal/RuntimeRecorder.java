package dev.rdmafutures.internal;

import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.events.ConnectFailedEvent;
import dev.rdmafutures.internal.events.ConnectionEndedEvent;
import dev.rdmafutures.internal.events.ConnectionEstablishedEvent;
import dev.rdmafutures.internal.events.FlightEvents;
import dev.rdmafutures.internal.events.PeerBackOffEvent;
import dev.rdmafutures.internal.events.SlowOperationEvent;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.WorkRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A runtime's own counters (its operations across every connection and shared receive queue, its connection
 * set-ups by outcome) and its JDK Flight Recorder events. Operations are counted per poller, each tally written by
 * that poller's owner alone (no locked instruction per operation), plus one shared tally for shared receive queues;
 * a snapshot adds them up. Connection set-ups come from every poller thread, so they are {@link LongAdder}s: no
 * poller waits for another, and counting allocates nothing once each has its cell. JFR events
 * cost nothing unless a recording enables them; slow operations are timed only while one does; a JVM whose Flight
 * Recorder cannot start runs without them ({@link FlightEvents}).
 */
final class RuntimeRecorder {
    private static final Status[] STATUSES = Status.values();

    private final String provider;
    private final long slowThresholdNanos;
    /** Each poller's operations, counted by its owner alone (by identity: one per poller, however many). */
    private final Map<PollerProxy, OperationTally> pollerTallies = new ConcurrentHashMap<>();
    /** Operations counted from several pollers: those of shared receive queues. */
    private final OperationTally sharedTally = OperationTally.shared();
    private final LongAdder connects = new LongAdder();
    private final LongAdder[] connectFailures = adders(STATUSES.length);
    private final LongAdder accepts = new LongAdder();
    private final LongAdder rejects = new LongAdder();
    private final LongAdder peerRefusals = new LongAdder();
    private final LongAdder peerBackOffs = new LongAdder();
    private final LongAdder ended = new LongAdder();

    RuntimeRecorder(String provider, Duration slowOperationThreshold) {
        this.provider = provider;
        this.slowThresholdNanos = slowOperationThreshold.toNanos();
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] array = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            array[i] = new LongAdder();
        }
        return array;
    }

    // --- operations (from OperationCounters) --------------------------------------------------------------------

    /** The tally of the operations whose outcome only {@code poller}'s owner reports. */
    OperationTally tallyFor(PollerProxy poller) {
        return pollerTallies.computeIfAbsent(poller, p -> OperationTally.owned());
    }

    /** The tally of operations reported from several pollers. */
    OperationTally sharedTally() {
        return sharedTally;
    }

    /** When an operation handed over now should be timed for {@link SlowOperationEvent}: now, else 0. */
    long startTiming() {
        return FlightEvents.slowOperationsRecorded() ? System.nanoTime() : 0;
    }

    /** An operation timed from {@code startedAt} ({@link #startTiming}) ended with {@code error} (null: success). */
    void finishTiming(long startedAt, WorkRequest.Kind kind, int length, RdmaException error) {
        if (startedAt == 0) {
            return;
        }
        long took = System.nanoTime() - startedAt;
        if (took < slowThresholdNanos) {
            return;
        }
        SlowOperationEvent event = new SlowOperationEvent();
        if (event.shouldCommit()) {
            event.kind = kind.name();
            event.bytes = length;
            event.status = error == null ? "SUCCESS" : error.status().name();
            event.took = took;
            event.commit();
        }
    }

    // --- connections ----------------------------------------------------------------------------------------------

    void established(InetSocketAddress local, InetSocketAddress remote, boolean active) {
        (active ? connects : accepts).increment();
        if (!FlightEvents.available()) {
            return;
        }
        ConnectionEstablishedEvent event = new ConnectionEstablishedEvent();
        if (event.shouldCommit()) {
            event.provider = provider;
            event.local = String.valueOf(local);
            event.remote = String.valueOf(remote);
            event.active = active;
            event.commit();
        }
    }

    void connectFailed(InetSocketAddress destination, RdmaException error) {
        connectFailures[error.status().ordinal()].increment();
        if (!FlightEvents.available()) {
            return;
        }
        ConnectFailedEvent event = new ConnectFailedEvent();
        if (event.shouldCommit()) {
            event.provider = provider;
            event.destination = String.valueOf(destination);
            event.status = error.status().name();
            event.message = error.getMessage();
            event.commit();
        }
    }

    void rejected() {
        rejects.increment();
    }

    /** A connection request refused because its address is in a back-off (counted among the rejects too). */
    void peerRefused() {
        peerRefusals.increment();
    }

    void peerBackOff(InetAddress address, int faults, long backOffNanos) {
        peerBackOffs.increment();
        if (!FlightEvents.available()) {
            return;
        }
        PeerBackOffEvent event = new PeerBackOffEvent();
        if (event.shouldCommit()) {
            event.provider = provider;
            event.address = address.getHostAddress();
            event.faults = faults;
            event.backOff = backOffNanos;
            event.commit();
        }
    }

    void ended(InetSocketAddress remote, DisconnectReason reason) {
        ended.increment();
        if (!FlightEvents.available()) {
            return;
        }
        ConnectionEndedEvent event = new ConnectionEndedEvent();
        if (event.shouldCommit()) {
            event.provider = provider;
            event.remote = String.valueOf(remote);
            event.reason = reason.name();
            event.commit();
        }
    }

    // --- snapshots --------------------------------------------------------------------------------------------------

    OperationMetrics operations() {
        List<OperationTally> tallies = new ArrayList<>(pollerTallies.values());
        tallies.add(sharedTally);
        return OperationTally.metrics(tallies.toArray(new OperationTally[0]));
    }

    EnumMap<Status, Long> connectFailures() {
        EnumMap<Status, Long> map = byStatus(connectFailures);
        map.values().removeIf(count -> count == 0);
        return map;
    }

    long connects() {
        return connects.sum();
    }

    long accepts() {
        return accepts.sum();
    }

    long rejects() {
        return rejects.sum();
    }

    long peerRefusals() {
        return peerRefusals.sum();
    }

    long peerBackOffs() {
        return peerBackOffs.sum();
    }

    /** Established connections not yet ended. */
    long open() {
        return connects.sum() + accepts.sum() - ended.sum();
    }

    private static EnumMap<Status, Long> byStatus(LongAdder[] counts) {
        EnumMap<Status, Long> map = new EnumMap<>(Status.class);
        for (Status status : STATUSES) {
            if (status == Status.SUCCESS) {
                continue;
            }
            map.put(status, counts[status.ordinal()].sum());
        }
        return map;
    }
}
