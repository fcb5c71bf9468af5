package dev.rdmafutures.internal.poller;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Turn-taking for an invoked poller: its owner's cycles (and the owner's queueing between them) against a close from
 * another thread, so that the loop is never shut down under a running {@code poll()} and is shut down once. Open
 * between cycles, held during one, stopped for good once a close took it while it was open.
 */
final class CycleGate {
    private static final int OPEN = 0;
    private static final int HELD = 1;
    private static final int STOPPED = 2;
    private final AtomicInteger state = new AtomicInteger(OPEN);

    /** Whether the owner holds it: only the owner takes it, so on the owner this means "inside my own cycle". */
    boolean isHeld() {
        return state.get() == HELD;
    }

    /** The owner takes it for a cycle; false once stopped. */
    boolean hold() {
        return state.compareAndSet(OPEN, HELD);
    }

    /** The owner's cycle ended. */
    void release() {
        state.set(OPEN);
    }

    /** Takes it for the shutdown: true for exactly one caller, and only while no cycle holds it. */
    boolean stop() {
        return state.compareAndSet(OPEN, STOPPED);
    }
}
