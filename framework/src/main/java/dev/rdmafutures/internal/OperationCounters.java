package dev.rdmafutures.internal;

import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.WorkRequest;

/**
 * The operation counters of one target (a connection or a shared receive queue), which also count into the
 * runtime's tally for the poller the target reports on ({@link RuntimeRecorder#tallyFor}). Written on poller
 * threads: a connection's only by its poller's owner, so both its tallies are {@link OperationTally#owned() owned}
 * and counting costs no locked instruction; a shared receive queue's completions on several pollers, so its
 * tallies are {@link OperationTally#shared() shared}. Read by any thread for a snapshot; counting allocates nothing.
 */
final class OperationCounters {
    private final OperationTally own;
    private final OperationTally runtimeTally;
    private final RuntimeRecorder runtime;
    /** The poller whose owner alone writes these counters; null when any poller may. */
    private final PollerProxy writer;

    /** Counters written only by {@code poller}'s owner. */
    static OperationCounters ownedBy(RuntimeRecorder runtime, PollerProxy poller) {
        return new OperationCounters(OperationTally.owned(), runtime.tallyFor(poller), runtime, poller);
    }

    /** Counters any poller writes. */
    static OperationCounters shared(RuntimeRecorder runtime) {
        return new OperationCounters(OperationTally.shared(), runtime.sharedTally(), runtime, null);
    }

    private OperationCounters(OperationTally own, OperationTally runtimeTally, RuntimeRecorder runtime,
                              PollerProxy writer) {
        this.own = own;
        this.runtimeTally = runtimeTally;
        this.runtime = runtime;
        this.writer = writer;
    }

    /** Checked under {@code -ea} (the tests): an owned tally written from two threads would lose counts. */
    private boolean writtenByItsWriter() {
        return writer == null || writer.poller().confinedToCaller();
    }

    void posted() {
        assert writtenByItsWriter() : Thread.currentThread().getName() + " counted for " + writer.poller().name();
        own.add(OperationTally.POSTED, 1);
        runtimeTally.add(OperationTally.POSTED, 1);
    }

    void completed(WorkRequest.Kind kind, int bytes) {
        assert writtenByItsWriter() : Thread.currentThread().getName() + " counted for " + writer.poller().name();
        own.add(OperationTally.COMPLETED, 1);
        runtimeTally.add(OperationTally.COMPLETED, 1);
        int index = OperationTally.bytesIndex(kind);
        if (index >= 0) {
            own.add(index, bytes);
            runtimeTally.add(index, bytes);
        }
    }

    void failed(Status status) {
        assert writtenByItsWriter() : Thread.currentThread().getName() + " counted for " + writer.poller().name();
        int index = OperationTally.failedIndex(status);
        own.add(index, 1);
        runtimeTally.add(index, 1);
    }

    OperationMetrics snapshot() {
        return OperationTally.metrics(own);
    }

    /** The runtime these counters also count into. */
    RuntimeRecorder runtime() {
        return runtime;
    }
}
