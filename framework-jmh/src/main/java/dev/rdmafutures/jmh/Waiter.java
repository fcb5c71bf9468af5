package dev.rdmafutures.jmh;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.RdmaException;
import java.util.concurrent.locks.LockSupport;

/**
 * A reusable {@link CompletionCallback} for a few operations outstanding at a time: the caller arms it with their
 * number, posts them, and waits until all completed. The result is the bytes of the operation posted with context 0.
 * Completions arrive on one thread (the client's poller), so a volatile count suffices.
 */
final class Waiter implements CompletionCallback {
    private volatile int remaining;
    private volatile Thread waiting;
    private int bytes;
    private RdmaException error;

    void arm(int operations) {
        error = null;
        waiting = null;
        remaining = operations;
    }

    /** Parks the calling thread until the operations completed (for a runtime with a poller thread). */
    void park() {
        waiting = Thread.currentThread(); // then re-check: a completion that missed it has set remaining already
        while (remaining != 0) {
            LockSupport.park(this);
        }
    }

    boolean isDone() {
        return remaining == 0;
    }

    /** The bytes of the operation with context 0; throws the first error if one failed. */
    int result() {
        if (error != null) {
            throw error;
        }
        return bytes;
    }

    @Override
    public void completed(long context, int bytes) {
        if (context == 0) {
            this.bytes = bytes;
        }
        countDown();
    }

    private void countDown() {
        int left = remaining - 1; // one writer: the client's poller
        remaining = left;
        Thread parked = waiting;
        if (left == 0 && parked != null) {
            LockSupport.unpark(parked);
        }
    }

    @Override
    public void failed(long context, RdmaException error) {
        if (this.error == null) {
            this.error = error;
        }
        countDown();
    }
}
