package dev.rdmafutures;

import java.time.Duration;
import java.util.Objects;

/**
 * What a connection's post does when the queue it goes to has no free slot; set for a runtime with
 * {@link RdmaRuntime.Builder#admission(Admission)}.
 *
 * <ul>
 *   <li>{@link #failFast()}, the default and NDK's rule: the post is refused at once with
 *       {@link Status#INSUFFICIENT_RESOURCES} (the future form fails its future, the callback form returns it), and
 *       the caller decides when to post again.</li>
 *   <li>{@link #waitForSlot(Duration, int)}: the operation waits for a slot in arrival order, without a thread per
 *       waiter, and is handed to the device as soon as one frees. A wait that lasts {@code maxWait} without a slot
 *       ends the operation with {@link Status#INSUFFICIENT_RESOURCES} through its future or callback, and a post that
 *       finds {@code maxWaiters} operations already waiting on that queue is refused at once as under
 *       {@code failFast}. A waiting operation still holds its regions; when its connection ends it ends
 *       {@link Status#CANCELED}, as every operation outstanding at the end does. Meant for many threads blocking on
 *       one connection (virtual threads each calling {@code read(...).get(timeout)}), which would otherwise each need
 *       their own semaphore around the post.</li>
 * </ul>
 *
 * <p>Either way a post with a free slot and no one waiting goes straight to the poller and allocates nothing more.
 * A {@link Batch} and a {@link SharedReceiveQueue} never wait: a batch's operation and a shared receive without a
 * slot are refused at once. Immutable and thread-safe.
 */
public final class Admission {
    private static final Admission FAIL_FAST = new Admission(Duration.ZERO, 0);
    private final Duration maxWait;
    private final int maxWaiters;

    private Admission(Duration maxWait, int maxWaiters) {
        this.maxWait = maxWait;
        this.maxWaiters = maxWaiters;
    }

    /** Refuse a post without a free slot at once (NDK); the default. */
    public static Admission failFast() {
        return FAIL_FAST;
    }

    /**
     * Let a post without a free slot wait for one, up to {@code maxWait} on the runtime's {@link Ticker}, behind at
     * most {@code maxWaiters - 1} others on the same queue (a connection's initiator queue, or its receive queue).
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when {@code maxWait} is not positive or longer than a
     *                       day, or {@code maxWaiters} is below 1
     * @throws NullPointerException when {@code maxWait} is null
     */
    public static Admission waitForSlot(Duration maxWait, int maxWaiters) {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative() || maxWait.isZero() || maxWait.compareTo(Duration.ofDays(1)) > 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, "maxWait must be positive and at most a day: " + maxWait);
        }
        if (maxWaiters < 1) {
            throw new RdmaException(Status.INVALID_PARAMETER, "maxWaiters must be at least 1: " + maxWaiters);
        }
        return new Admission(maxWait, maxWaiters);
    }

    /** Whether a post without a free slot waits for one. */
    public boolean waits() {
        return maxWaiters > 0;
    }

    /** How long an operation waits for a slot; zero under {@link #failFast()}. */
    public Duration maxWait() {
        return maxWait;
    }

    /** How many operations may wait on one queue at once; zero under {@link #failFast()}. */
    public int maxWaiters() {
        return maxWaiters;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Admission a && a.maxWaiters == maxWaiters && a.maxWait.equals(maxWait);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxWait, maxWaiters);
    }

    @Override
    public String toString() {
        return waits() ? "Admission.waitForSlot(" + maxWait + ", " + maxWaiters + ")" : "Admission.failFast()";
    }
}
