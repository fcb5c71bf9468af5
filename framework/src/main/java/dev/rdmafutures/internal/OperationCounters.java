package dev.rdmafutures.internal;

import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.util.EnumMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The operation counters of one target (a connection or a shared receive queue), which also count into the
 * runtime's ({@link RuntimeRecorder}). Written on poller threads (a shared receive queue's completions on several),
 * read by any thread for a snapshot; counting allocates nothing.
 */
final class OperationCounters {
    private static final Status[] STATUSES = Status.values();
    private static final int POSTED = 0;
    private static final int COMPLETED = 1;
    private static final int READ = 2;
    private static final int WRITTEN = 3;
    private static final int SENT = 4;
    private static final int RECEIVED = 5;
    private static final int FAILED = 6;

    private final AtomicLongArray counts = new AtomicLongArray(FAILED + STATUSES.length);
    private final RuntimeRecorder runtime;

    OperationCounters(RuntimeRecorder runtime) {
        this.runtime = runtime;
    }

    /** The index of the bytes counter for {@code kind}, or -1 for requests that move no bytes. */
    static int bytesIndex(WorkRequest.Kind kind) {
        return switch (kind) {
            case READ -> READ;
            case WRITE -> WRITTEN;
            case SEND, SEND_INVALIDATE -> SENT;
            case RECEIVE -> RECEIVED;
            case BIND_WINDOW, INVALIDATE_WINDOW, FAST_REGISTER -> -1;
        };
    }

    void posted() {
        counts.getAndIncrement(POSTED);
        runtime.posted();
    }

    void completed(WorkRequest.Kind kind, int bytes) {
        counts.getAndIncrement(COMPLETED);
        int index = bytesIndex(kind);
        if (index >= 0) {
            counts.getAndAdd(index, bytes);
        }
        runtime.completed(index, bytes);
    }

    void failed(Status status) {
        counts.getAndIncrement(FAILED + status.ordinal());
        runtime.failed(status);
    }

    OperationMetrics snapshot() {
        EnumMap<Status, Long> failures = new EnumMap<>(Status.class);
        for (Status status : STATUSES) {
            if (status == Status.SUCCESS) {
                continue;
            }
            failures.put(status, counts.get(FAILED + status.ordinal()));
        }
        long[] bytes = new long[BYTES_SLOTS];
        for (int i = READ; i <= RECEIVED; i++) {
            bytes[i] = counts.get(i);
        }
        return metrics(counts.get(POSTED), counts.get(COMPLETED), bytes, failures);
    }

    /** The runtime these counters also count into. */
    RuntimeRecorder runtime() {
        return runtime;
    }

    /** A snapshot from counts kept elsewhere, its bytes indexed as {@link #bytesIndex} says. */
    static OperationMetrics metrics(long posted, long completed, long[] bytes, EnumMap<Status, Long> failures) {
        return new OperationMetrics(posted, completed, bytes[READ], bytes[WRITTEN], bytes[SENT], bytes[RECEIVED],
                failures);
    }

    /** How many bytes counters {@link #bytesIndex} indexes into, for {@link RuntimeRecorder}'s own. */
    static final int BYTES_SLOTS = FAILED;
}
