package dev.rdmafutures.conformance;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The tests' one way to wait for a condition that another thread makes true: poll it under a deadline, spinning a
 * little and then parking for pauses that double up to {@value #MAX_PAUSE_MILLIS} ms, and give up at the deadline.
 * A test that waits for something uses this, a future with a deadline, or an ordering barrier; none sleeps. Where the
 * absence of an event is checked, a barrier (a later event that can only follow it) says when, never a pause.
 */
public final class Waits {
    /** Polls that only spin before the first park: a condition that is about to hold costs no wake-up. */
    private static final int SPINS = 32;
    private static final long FIRST_PAUSE_NANOS = 10_000;
    private static final long MAX_PAUSE_MILLIS = 10;
    private static final long MAX_PAUSE_NANOS = MAX_PAUSE_MILLIS * 1_000_000;

    private Waits() {
    }

    /**
     * Returns once {@code condition} holds; fails, naming {@code what}, when it has not within {@code within}.
     */
    public static void until(String what, Duration within, BooleanSupplier condition) {
        if (!poll(within, condition)) {
            throw new AssertionError("not within " + within + ": " + what);
        }
    }

    /**
     * Polls {@code condition} until it holds or {@code within} has passed; whether it held. For a caller that reports
     * what it found at the deadline itself.
     */
    public static boolean poll(Duration within, BooleanSupplier condition) {
        long deadline = System.nanoTime() + within.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        for (int polls = 0; !condition.getAsBoolean(); polls++) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return condition.getAsBoolean(); // a last look: the deadline may have passed while we parked
            }
            if (polls < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(Math.min(pause, left));
                pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
                failIfInterrupted();
            }
        }
        return true;
    }

    /**
     * Parks until {@link System#nanoTime()} reaches {@code deadline}: for a test that paces itself by the clock (a
     * sampler that looks every few seconds), never to wait for an event.
     */
    public static void parkUntil(long deadline) {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            failIfInterrupted();
        }
    }

    private static void failIfInterrupted() {
        if (Thread.currentThread().isInterrupted()) {
            throw new AssertionError("interrupted while waiting"); // the flag stays set for the caller
        }
    }
}
