package dev.rdmafutures.verbs;

import java.time.Duration;

/**
 * How long an RC queue pair retransmits to a silent peer before its oldest request fails with
 * {@code IBV_WC_RETRY_EXC_ERR} (IO_TIMEOUT): {@code retryCount + 1} tries of the local ACK timeout, 4.096 µs ×
 * 2<sup>{@code ackTimeout}</sup> each. {@link #within} derives it from the runtime's {@code livenessTimeout}. The
 * retry count stays below 7, which rxe takes as "retry forever" (rxe_comp.c): left at 7, a READ to a peer behind a
 * cut link never ended.
 */
record RetryBudget(int ackTimeout, int retryCount) {
    /** The most retries that still end: rxe retransmits forever at 7. */
    static final int MAX_RETRY_COUNT = 6;
    /** The ACK timeout's unit, 4.096 µs, in nanoseconds. */
    private static final long UNIT_NANOS = 4096;
    /** The largest exponent a QP takes; 0 would disable the timer. */
    private static final int MAX_ACK_TIMEOUT = 31;

    /**
     * The longest budget not above {@code liveness}, the one with the shortest ACK timeout (the most retries) among
     * equal ones; the shortest budget there is when even that exceeds {@code liveness}.
     */
    static RetryBudget within(Duration liveness) {
        long limit = liveness.toNanos();
        RetryBudget best = new RetryBudget(1, 0);
        for (int timeout = 1; timeout <= MAX_ACK_TIMEOUT; timeout++) {
            for (int retries = MAX_RETRY_COUNT; retries >= 0; retries--) {
                long total = (retries + 1) * (UNIT_NANOS << timeout);
                if (total <= limit && total > best.nanos()) {
                    best = new RetryBudget(timeout, retries);
                }
            }
        }
        return best;
    }

    /** One try: the QP's local ACK timeout. */
    Duration ackTimeoutDuration() {
        return Duration.ofNanos(UNIT_NANOS << ackTimeout);
    }

    /** Every try: from the last sign of life to the request's failure. */
    Duration duration() {
        return Duration.ofNanos(nanos());
    }

    private long nanos() {
        return (retryCount + 1) * (UNIT_NANOS << ackTimeout);
    }

    @Override
    public String toString() {
        return "ACK timeout " + ackTimeout + " (" + ackTimeoutDuration().toMillis() + " ms) x " + (retryCount + 1)
                + " tries = " + duration().toMillis() + " ms";
    }
}
