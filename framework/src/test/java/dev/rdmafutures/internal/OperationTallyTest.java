package dev.rdmafutures.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/** The two forms of {@link OperationTally}: neither loses a count when used as its Javadoc allows. */
class OperationTallyTest {
    private static final int PER_THREAD = 100_000;

    @Test
    void aSharedTallyCountsEveryAddFromThreadsRacing() throws Exception {
        OperationTally tally = OperationTally.shared();
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                await(start);
                for (int i = 0; i < PER_THREAD; i++) {
                    tally.add(OperationTally.COMPLETED, 1);
                    tally.add(OperationTally.bytesIndex(WorkRequest.Kind.RECEIVE), 3);
                }
            });
            thread.start();
            started.add(thread);
        }
        for (Thread thread : started) {
            thread.join();
        }
        OperationMetrics metrics = OperationTally.metrics(tally);
        assertThat(metrics.completed()).isEqualTo((long) threads * PER_THREAD);
        assertThat(metrics.bytesReceived()).isEqualTo(3L * threads * PER_THREAD);
    }

    @Test
    void anOwnedTallyHandedFromThreadToThreadKeepsEveryCount() throws Exception {
        OperationTally tally = OperationTally.owned();
        for (int owner = 0; owner < 3; owner++) {
            // join() orders each owner's writes before the next owner's, as a poller's hand-over does.
            Thread thread = new Thread(() -> {
                for (int i = 0; i < PER_THREAD; i++) {
                    tally.add(OperationTally.POSTED, 1);
                }
            });
            thread.start();
            thread.join();
        }
        assertThat(OperationTally.metrics(tally).posted()).isEqualTo(3L * PER_THREAD);
    }

    @Test
    void metricsAddTalliesUpByKindAndStatus() {
        OperationTally owned = OperationTally.owned();
        OperationTally shared = OperationTally.shared();
        owned.add(OperationTally.bytesIndex(WorkRequest.Kind.READ), 8);
        shared.add(OperationTally.bytesIndex(WorkRequest.Kind.READ), 16);
        owned.add(OperationTally.bytesIndex(WorkRequest.Kind.SEND_INVALIDATE), 5);
        shared.add(OperationTally.bytesIndex(WorkRequest.Kind.WRITE), 7);
        owned.add(OperationTally.failedIndex(Status.CANCELED), 1);
        shared.add(OperationTally.failedIndex(Status.CANCELED), 2);

        OperationMetrics metrics = OperationTally.metrics(owned, shared);

        assertThat(metrics.bytesRead()).isEqualTo(24);
        assertThat(metrics.bytesSent()).isEqualTo(5);
        assertThat(metrics.bytesWritten()).isEqualTo(7);
        assertThat(metrics.failures()).containsEntry(Status.CANCELED, 3L).doesNotContainKey(Status.SUCCESS);
        assertThat(OperationTally.bytesIndex(WorkRequest.Kind.BIND_WINDOW)).isEqualTo(-1);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
