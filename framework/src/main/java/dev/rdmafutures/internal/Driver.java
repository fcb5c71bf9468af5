package dev.rdmafutures.internal;

/**
 * The application-driven runtime ({@code pollerThreads(0)}) behind a future: no poller thread will complete the
 * future, so its owner polls while it waits. Any other thread just waits.
 */
interface Driver {
    /** Whether the calling thread owns the runtime, so that its waits must poll. */
    boolean ownedByCurrentThread();

    /** On the owner: makes sure the owner's waits drive this runtime (the owner had not polled it yet). */
    void adoptOnOwner();
}
