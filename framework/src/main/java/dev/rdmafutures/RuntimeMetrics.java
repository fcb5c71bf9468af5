package dev.rdmafutures;

import java.util.List;
import java.util.Map;

/**
 * A runtime's counters at one moment ({@link RdmaRuntime#metrics()}): every operation of its connections and shared
 * receive queues (ended ones included), its connection set-ups by outcome, and its pollers' duty cycles. For
 * Micrometer, {@code RdmaFuturesMetrics} (package {@code dev.rdmafutures.micrometer}) binds these to a registry.
 *
 * @param operations     every operation of the runtime
 * @param connects       connections this side started that were established
 * @param connectFailures connections this side started that failed, by status (refused, unreachable, timed out...)
 * @param accepts        connection requests accepted and established
 * @param rejects        connection requests rejected by this side (by the application or the framework)
 * @param peerRefusals   connection requests refused because their address was in a back-off for its faults
 *                       ({@link PeerFaultPolicy}); each is also counted among the rejects once its reject is sent
 * @param peerBackOffs   back-offs the {@link PeerFaultPolicy} started: an address reaching the fault limit
 * @param open           connection ends established and not yet ended (a runtime connected to itself counts two)
 * @param pollers        each poller's duty cycle
 * @param pollerErrors   errors the pollers contained (see {@link RdmaRuntime#pollerErrorCount()})
 * @param pollerErrorsByCause the same errors by where they happened and their exception type, as
 *                       {@code "completion callback: java.lang.IllegalStateException"}
 */
public record RuntimeMetrics(OperationMetrics operations, long connects, Map<Status, Long> connectFailures,
                             long accepts, long rejects, long peerRefusals, long peerBackOffs, long open,
                             List<PollerMetrics> pollers,
                             long pollerErrors, Map<String, Long> pollerErrorsByCause) {
    /** Copies the collections. */
    public RuntimeMetrics {
        connectFailures = Map.copyOf(connectFailures);
        pollers = List.copyOf(pollers);
        pollerErrorsByCause = Map.copyOf(pollerErrorsByCause);
    }
}
