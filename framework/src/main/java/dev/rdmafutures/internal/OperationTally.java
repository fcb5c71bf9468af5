package dev.rdmafutures.internal;

import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.util.EnumMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of operations (posted, completed, bytes by kind, failures by status) in one of two forms, chosen by who
 * writes them. {@link #owned()}: one thread at a time (a poller's owner; a hand-over publishes what it wrote) adds
 * with a plain read and a release store, Agrona's ordered counter, so counting costs no locked instruction on the data
 * path. {@link #shared()}: any thread adds through {@link LongAdder}s, so that pollers completing one shared receive
 * queue's receives never wait for each other. Either is read from any thread, at most slightly behind.
 */
abstract sealed class OperationTally {
    private static final Status[] STATUSES = Status.values();
    static final int POSTED = 0;
    static final int COMPLETED = 1;
    private static final int READ = 2;
    private static final int WRITTEN = 3;
    private static final int SENT = 4;
    private static final int RECEIVED = 5;
    private static final int FAILED = 6;
    /** How many counts a tally keeps. */
    static final int SLOTS = FAILED + STATUSES.length;

    /** A tally only one thread at a time adds to. */
    static OperationTally owned() {
        return new Owned();
    }

    /** A tally any thread adds to. */
    static OperationTally shared() {
        return new Shared();
    }

    /** The index of the bytes count for {@code kind}, or -1 for requests that move no bytes. */
    static int bytesIndex(WorkRequest.Kind kind) {
        return switch (kind) {
            case READ -> READ;
            case WRITE -> WRITTEN;
            case SEND, SEND_INVALIDATE -> SENT;
            case RECEIVE -> RECEIVED;
            case BIND_WINDOW, INVALIDATE_WINDOW, FAST_REGISTER -> -1;
        };
    }

    /** The index of the count of failures with {@code status}. */
    static int failedIndex(Status status) {
        return FAILED + status.ordinal();
    }

    abstract void add(int index, long n);

    abstract long get(int index);

    /** What {@code tallies} counted together. */
    static OperationMetrics metrics(OperationTally... tallies) {
        long[] sums = new long[SLOTS];
        for (OperationTally tally : tallies) {
            for (int i = 0; i < SLOTS; i++) {
                sums[i] += tally.get(i);
            }
        }
        EnumMap<Status, Long> failures = new EnumMap<>(Status.class);
        for (Status status : STATUSES) {
            if (status != Status.SUCCESS) {
                failures.put(status, sums[failedIndex(status)]);
            }
        }
        return new OperationMetrics(sums[POSTED], sums[COMPLETED], sums[READ], sums[WRITTEN], sums[SENT],
                sums[RECEIVED], failures);
    }

    private static final class Owned extends OperationTally {
        private final AtomicLongArray counts = new AtomicLongArray(SLOTS);

        @Override
        void add(int index, long n) {
            counts.lazySet(index, counts.get(index) + n);
        }

        @Override
        long get(int index) {
            return counts.get(index);
        }
    }

    private static final class Shared extends OperationTally {
        private final LongAdder[] counts = new LongAdder[SLOTS];

        Shared() {
            for (int i = 0; i < SLOTS; i++) {
                counts[i] = new LongAdder();
            }
        }

        @Override
        void add(int index, long n) {
            counts[index].add(n);
        }

        @Override
        long get(int index) {
            return counts[index].sum();
        }
    }
}
