package dev.rdmafutures.internal;

/**
 * How a thread that waits on a future of an application-driven runtime ({@code pollerThreads(0)}) drives it: no
 * poller thread will complete the future, so its owner polls while it waits. Any other thread just waits.
 */
interface Driver {
    /** Whether the calling thread owns the runtime, so that its waits must poll. */
    boolean ownedByCurrentThread();

    /** One duty cycle of the runtime; spins briefly when it found nothing to do. */
    void driveOnce();
}
