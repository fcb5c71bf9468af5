package dev.rdmafutures.samples.kv;

import dev.rdmafutures.Status;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The clock, the counts and the verdict of one run, shared by its connections: when measuring starts, when no new
 * operation may start, how many operations started and ended, and the first failure, which stops every connection.
 * A failure is either typed, an operation that the transport ended with an RDMA {@link Status} (the server went away,
 * the link was cut), tallied by status, or a problem: a wrong value, a torn one that passed, an answer nobody asked
 * for. Both stop the run alike; a fault test tells them apart. Thread-safe; the start and end counts are written by
 * the run's one load thread only and may be read by any.
 */
final class RunControl {
    private static final long DRAIN = TimeUnit.SECONDS.toNanos(30);
    private static final Status[] STATUSES = Status.values();

    private final long start;
    private final long measureFrom;
    private final long stopAt;
    private final long milestone;
    private final CompletableFuture<Long> milestoneReached = new CompletableFuture<>();
    private final AtomicReference<String> failure = new AtomicReference<>();
    // Single writer (the load thread): ordered stores, no read-modify-write, so counting costs the hot path nothing
    // that a benchmark could see, while a fault test's thread reads consistent counts.
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLongArray failed = new AtomicLongArray(STATUSES.length);
    private final AtomicLong problems = new AtomicLong();
    private final AtomicLong firstFailureAt = new AtomicLong();
    private final AtomicLong lastFailureAt = new AtomicLong();

    RunControl(LoadSpec spec) {
        this(spec, Long.MAX_VALUE);
    }

    /** A run whose {@link #milestone()} completes when {@code milestone} operations have completed. */
    RunControl(LoadSpec spec, long milestone) {
        this.start = System.nanoTime();
        this.milestone = milestone;
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

    /** An operation started; from the load thread only. */
    void started() {
        started.lazySet(started.get() + 1);
    }

    /** An operation ended well (its value checked, or its PUT acknowledged); from the load thread only. */
    void completed() {
        long n = completed.get() + 1;
        completed.lazySet(n);
        if (n == milestone) {
            milestoneReached.complete(n);
        }
    }

    /** Completes when the milestone this run was made with is reached; never for a run made without one. */
    CompletableFuture<Long> milestone() {
        return milestoneReached;
    }

    /**
     * A problem: a wrong or torn value, an unexpected answer, an operation that never ended. Records the first failure,
     * which stops the run.
     */
    void fail(String why) {
        problems.incrementAndGet();
        failure.compareAndSet(null, why);
    }

    /**
     * An operation the transport ended with {@code status}: tallied under it. Records the first failure, which stops
     * the run; with {@code operation} false the failure stops the run without counting an operation as failed (a
     * connection's acknowledgement receives, which belong to no operation).
     */
    void failed(Status status, boolean operation, String why) {
        long now = System.nanoTime();
        firstFailureAt.compareAndSet(0, now);
        if (operation) {
            failed.incrementAndGet(status.ordinal());
            lastFailureAt.set(now);
        }
        failure.compareAndSet(null, why);
    }

    /** The first failure, or null. */
    String failure() {
        return failure.get();
    }

    long startedOperations() {
        return started.get();
    }

    long completedOperations() {
        return completed.get();
    }

    /** Operations that ended with a typed transport failure, by status, in the order of {@link Status}. */
    Map<Status, Long> failedByStatus() {
        Map<Status, Long> byStatus = new EnumMap<>(Status.class);
        for (Status s : STATUSES) {
            long n = failed.get(s.ordinal());
            if (n > 0) {
                byStatus.put(s, n);
            }
        }
        return Collections.unmodifiableMap(byStatus);
    }

    /** Operations that ended with a typed transport failure. */
    long failedOperations() {
        long n = 0;
        for (int i = 0; i < STATUSES.length; i++) {
            n += failed.get(i);
        }
        return n;
    }

    /** Failures that were not typed transport failures: wrong values, unexpected answers, hangs. */
    long problems() {
        return problems.get();
    }

    /** {@link System#nanoTime()} of the first typed failure, 0 if none. */
    long firstFailureAt() {
        return firstFailureAt.get();
    }

    /** {@link System#nanoTime()} of the last operation that failed typed, 0 if none. */
    long lastFailureAt() {
        return lastFailureAt.get();
    }
}
