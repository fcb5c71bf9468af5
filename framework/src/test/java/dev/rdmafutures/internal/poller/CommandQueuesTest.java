package dev.rdmafutures.internal.poller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The poller's command hand-off with an array queue small enough to fill: commands that overflow it still run in
 * each thread's order, at most {@code max} per run, and a close runs every command a racing thread got in.
 */
class CommandQueuesTest {
    private final DutyCycleErrors errors = new DutyCycleErrors();

    @Test
    void commandsPastAFullArrayQueueRunInOrderAfterIt() {
        CommandQueues queues = new CommandQueues(errors, 4);
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int n = i;
            assertThat(queues.offer(() -> ran.add(n))).isTrue();
        }
        queues.offerOwn(() -> ran.add(100));
        assertThat(queues.run(3)).isEqualTo(3);
        assertThat(ran).containsExactly(0, 1, 2);
        assertThat(queues.offer(() -> ran.add(10))).as("after the overflow, not before it").isTrue();
        assertThat(queues.run(100)).isEqualTo(9);
        assertThat(ran).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100);
        assertThat(queues.isEmpty()).isTrue();
    }

    @Test
    void aCommandThatThrowsIsRecordedAndTheNextStillRuns() {
        CommandQueues queues = new CommandQueues(errors, 4);
        List<String> ran = new ArrayList<>();
        queues.offer(() -> {
            throw new IllegalStateException("boom");
        });
        queues.offer(() -> ran.add("next"));
        assertThat(queues.run(10)).isEqualTo(2);
        assertThat(ran).containsExactly("next");
        assertThat(errors.total()).isEqualTo(1);
    }

    /**
     * Three threads offer 20,000 commands each through an array queue of 8 while the owner runs them and closes
     * midway, 40 times over: every command runs once, in its thread's order, or is refused after the close. A thread
     * that fills the array queue and overflows while the owner looks from one queue to the other shows here (it did,
     * in about one round in eight, before {@code run} peeked at the overflow first).
     */
    @Test
    void racingThreadsCommandsEachRunOnceInTheirOrderThroughTheClose() throws Exception {
        for (int round = 0; round < 40; round++) {
            raceOnce(round);
        }
    }

    private void raceOnce(int round) throws Exception {
        CommandQueues queues = new CommandQueues(errors, 8);
        int threads = 3;
        int perThread = 20_000;
        int[] next = new int[threads];
        List<String> outOfOrder = new ArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> offering = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        int seq = i;
                        boolean accepted = queues.offer(() -> {
                            if (next[thread] != seq && outOfOrder.size() < 3) {
                                outOfOrder.add("thread " + thread + "'s command " + seq + " ran where "
                                        + next[thread] + " was due");
                            }
                            next[thread] = seq + 1;
                        });
                        if (!accepted) {
                            refused.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "offering-" + t);
            th.start();
            offering.add(th);
        }
        start.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int ran = 0;
        while (ran < threads * perThread / 2 && System.nanoTime() < deadline) {
            ran += queues.run(64);
        }
        queues.close(); // mid-stream: the rest is refused or drained by the close
        queues.drainAfterClose();
        for (Thread th : offering) {
            th.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(failure.get()).isNull();
        assertThat(outOfOrder).as("round %d: commands run out of their thread's order", round).isEmpty();
        int accepted = 0;
        for (int n : next) {
            accepted += n;
        }
        assertThat(accepted + refused.get()).as("round %d: every command either ran or was refused", round)
                .isEqualTo(threads * perThread);
        assertThat(queues.isEmpty()).isTrue();
        assertThat(queues.offer(() -> { })).as("closed").isFalse();
    }
}
