package dev.rdmafutures.samples.kv;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The clock and the verdict of one run, shared by its connections: when measuring starts, when no new operation
 * may start, and the first failure, which stops every connection. Thread-safe.
 */
final class RunControl {
    private static final long DRAIN = TimeUnit.SECONDS.toNanos(30);

    private final long start;
    private final long measureFrom;
    private final long stopAt;
    private final AtomicReference<String> failure = new AtomicReference<>();

    RunControl(LoadSpec spec) {
        this.start = System.nanoTime();
        if (spec.opsPerSlot() > 0) {
            this.measureFrom = start;
            this.stopAt = Long.MAX_VALUE;
        } else {
            this.measureFrom = start + spec.warmup().toNanos();
            this.stopAt = measureFrom + spec.duration().toNanos();
        }
    }

    /** Whether an operation may start at {@code now}. */
    boolean mayStart(long now) {
        return now - stopAt < 0 && failure.get() == null;
    }

    /** Whether an operation from {@code begin} to {@code end} falls into the measured interval. */
    boolean measured(long begin, long end) {
        return begin - measureFrom >= 0 && end - stopAt <= 0;
    }

    long start() {
        return start;
    }

    long measureFrom() {
        return measureFrom;
    }

    /** The end of the measured interval; {@link Long#MAX_VALUE} in a counted run. */
    long stopAt() {
        return stopAt;
    }

    /** The last moment to wait for a run's operations to finish: 30 s after the stop, or 2 min for a counted run. */
    long drainDeadline() {
        return stopAt == Long.MAX_VALUE ? start + 4 * DRAIN : stopAt + DRAIN;
    }

    /** Records a failure; the first one wins and stops the run. */
    void fail(String why) {
        failure.compareAndSet(null, why);
    }

    /** The first failure, or null. */
    String failure() {
        return failure.get();
    }
}
