package dev.rdmafutures.internal;

import dev.rdmafutures.Admission;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.PeerFaultPolicy;
import dev.rdmafutures.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * A runtime's validated settings, as the public builder collected them.
 *
 * @param pollerThreads      poller threads; 0 for an application-driven runtime
 * @param invokedPollers     with no poller thread, the pollers the application drives: 1, owned by the building
 *                           thread, or more, each claimed by the thread that drives it
 * @param idleStrategy       how pollers wait when idle
 * @param completionExecutor where futures complete, or null for the poller thread
 * @param connectTimeout     the default connect deadline
 * @param handshakeTimeout   the passive side's handshake deadline
 * @param disconnectTimeout  how long a graceful disconnect waits for the peer
 * @param listenBacklog      requests a listener queues
 * @param threadNamePrefix   the prefix of poller thread names
 * @param livenessTimeout    how long a silent peer that owes us something keeps its connection
 * @param slowOperationThreshold the duration from which an operation is reported as a JFR SlowOperation event
 * @param ticker             the time source of the pollers' deadlines
 * @param admission          what a connection's post does without a free slot
 * @param peerFaultPolicy    when the listeners refuse a peer address for its faults
 * @param providerOptions    provider-specific options
 */
public record RuntimeSettings(int pollerThreads, int invokedPollers, IdleStrategy idleStrategy,
                              Executor completionExecutor,
                              Duration connectTimeout, Duration handshakeTimeout, Duration disconnectTimeout,
                              int listenBacklog, String threadNamePrefix, Duration livenessTimeout,
                              Duration slowOperationThreshold, Ticker ticker, Admission admission,
                              PeerFaultPolicy peerFaultPolicy, Map<String, String> providerOptions) {
    /** Copies the options. */
    public RuntimeSettings {
        providerOptions = Map.copyOf(providerOptions);
    }
}
