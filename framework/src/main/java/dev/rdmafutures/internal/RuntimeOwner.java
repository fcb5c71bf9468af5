package dev.rdmafutures.internal;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Admission;
import dev.rdmafutures.internal.poller.PollerProxy;
import java.time.Duration;

/**
 * What a runtime's parts (connections, listeners, regions, shared endpoints) need of the runtime that owns them:
 * this narrow view, never the runtime itself.
 */
interface RuntimeOwner {
    /** The adapter's capabilities. */
    AdapterInfo adapterInfo();

    /** Where futures complete and callbacks run. */
    Completions completions();

    /**
     * The poller the next connection, listener or shared receive queue goes to: round robin, or, of several invoked
     * pollers, the calling thread's own when it drives one.
     */
    PollerProxy nextPoller();

    /** The default connect deadline. */
    Duration connectTimeout();

    /** Whether the runtime was closed. */
    boolean isClosed();

    /** A new incomplete future that waits the way this runtime's futures wait. */
    <T> RdmaFuture<T> newFuture();

    /** What a waiting owner thread polls, or null when poller threads complete the futures. */
    Driver driver();

    /** What a connection's post does without a free slot. */
    Admission admission();

    /** The runtime's counters and JFR events. */
    RuntimeRecorder recorder();

    /** The faults of each peer address, and whether the listeners refuse it now. */
    PeerFaults peerFaults();

    /** The runtime stops tracking {@code resource}: it closed, or was deregistered, on its own. */
    void untrack(Object resource);

    /** The protection domain of what is made, and connections opened, without naming one. */
    DomainImpl defaultDomain();
}
