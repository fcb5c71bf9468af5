package dev.rdmafutures;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts of data-path operations (READ, WRITE, SEND, RECEIVE, window and fast-registration requests) at one moment:
 * of one connection ({@link RdmaConnection#metrics()}), of one shared receive queue, or of a whole runtime
 * ({@link RdmaRuntime#metrics()}). An operation counts as posted once it is handed to its poller (one refused at
 * once with a typed error never is), then as completed or as failed with its {@link Status}; bytes count what
 * completed operations moved. Counters only grow. Immutable.
 */
public final class OperationMetrics {
    private final long posted;
    private final long completed;
    private final long bytesRead;
    private final long bytesWritten;
    private final long bytesSent;
    private final long bytesReceived;
    private final Map<Status, Long> failures;

    /** A snapshot; {@code failures} holds the failed operations by status (absent statuses count 0). */
    public OperationMetrics(long posted, long completed, long bytesRead, long bytesWritten, long bytesSent,
                            long bytesReceived, Map<Status, Long> failures) {
        this.posted = posted;
        this.completed = completed;
        this.bytesRead = bytesRead;
        this.bytesWritten = bytesWritten;
        this.bytesSent = bytesSent;
        this.bytesReceived = bytesReceived;
        EnumMap<Status, Long> copy = new EnumMap<>(Status.class);
        failures.forEach((status, count) -> {
            if (count != 0) {
                copy.put(status, count);
            }
        });
        this.failures = Collections.unmodifiableMap(copy);
    }

    /** Operations handed to the poller. */
    public long posted() {
        return posted;
    }

    /** Operations that completed successfully. */
    public long completed() {
        return completed;
    }

    /** Operations that failed, whatever the status. */
    public long failed() {
        long sum = 0;
        for (long count : failures.values()) {
            sum += count;
        }
        return sum;
    }

    /** Operations that failed with {@code status}. */
    public long failed(Status status) {
        return failures.getOrDefault(status, 0L);
    }

    /** The failed operations by status; statuses that never occurred are absent. */
    public Map<Status, Long> failures() {
        return failures;
    }

    /** Posted and not yet completed or failed when the snapshot was taken (approximate while operations run). */
    public long inFlight() {
        return Math.max(0, posted - completed - failed());
    }

    /** Bytes completed READs placed here. */
    public long bytesRead() {
        return bytesRead;
    }

    /** Bytes completed WRITEs moved to the peer. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /** Bytes completed SENDs (with or without invalidate) moved to the peer. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Bytes completed RECEIVEs took from the peer. */
    public long bytesReceived() {
        return bytesReceived;
    }

    @Override
    public String toString() {
        return "OperationMetrics[posted " + posted + ", completed " + completed + ", failed " + failures
                + ", bytes read " + bytesRead + " written " + bytesWritten + " sent " + bytesSent + " received "
                + bytesReceived + "]";
    }
}
