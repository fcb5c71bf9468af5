package dev.rdmafutures.internal;

import dev.rdmafutures.spi.WorkRequest;

/** Where a {@link CallbackOperation} is posted: a connection's queue pair, or a shared receive queue. */
interface OperationTarget {
    /** The slots operations take at their post and give back when reported. */
    QueueSlots slots();

    /** Its operations' counters. */
    OperationCounters counters();

    /**
     * Whether the target is ending (its end was requested or reached): operations still waiting for a slot are then
     * flushed CANCELED instead of admitted.
     */
    boolean isEnding();

    /** Where outcomes are delivered. */
    Completions completions();

    /**
     * On the poller thread: hands {@code request} to the provider, or, when the target ended after the post was
     * accepted, fails it with CANCELED as NDK flushes every request outstanding at the end.
     */
    void submit(WorkRequest request);

    /**
     * A receive of this shared receive queue left it: taken by a connection, or failed without being taken. Once per
     * receive, on the thread that reports it. Connections have no shared receives.
     */
    default void sharedReceiveLeft() {
    }
}
