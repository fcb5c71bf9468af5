package dev.rdmafutures.internal.poller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The poller's hand-off queue: bounded, first in first out, refuses nulls, drains in batches, and under several
 * producers racing a consumer through a small ring (full and wrapping all the time) delivers every element once, in
 * each producer's order.
 */
class ManyToOneArrayQueueTest {

    @Test
    void capacityIsTheNextPowerOfTwoAndBoundsTheQueue() {
        ManyToOneArrayQueue<Integer> queue = new ManyToOneArrayQueue<>(5);
        assertThat(queue.capacity()).isEqualTo(8);
        for (int i = 0; i < 8; i++) {
            assertThat(queue.offer(i)).as("offer %d", i).isTrue();
        }
        assertThat(queue.offer(8)).as("full").isFalse();
        assertThat(queue.size()).isEqualTo(8);
        assertThat(queue.poll()).isEqualTo(0);
        assertThat(queue.offer(8)).as("one slot freed").isTrue();
        assertThat(queue.offer(9)).isFalse();
        assertThat(new ManyToOneArrayQueue<>(2).capacity()).isEqualTo(2);
        assertThat(new ManyToOneArrayQueue<>(16 * 1024).capacity()).isEqualTo(16 * 1024);
    }

    @Test
    void refusesABadCapacityAndNullElements() {
        assertThatThrownBy(() -> new ManyToOneArrayQueue<>(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ManyToOneArrayQueue<>((1 << 30) + 1))
                .isInstanceOf(IllegalArgumentException.class);
        ManyToOneArrayQueue<Object> queue = new ManyToOneArrayQueue<>(4);
        assertThatThrownBy(() -> queue.offer(null)).isInstanceOf(NullPointerException.class);
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void keepsOrderAcrossManyWrapsOfTheRing() {
        ManyToOneArrayQueue<Integer> queue = new ManyToOneArrayQueue<>(4);
        int next = 0;
        for (int round = 0; round < 1000; round++) {
            int offered = round % 4 + 1;
            for (int i = 0; i < offered; i++) {
                assertThat(queue.offer(round * 10 + i)).isTrue();
            }
            for (int i = 0; i < offered; i++) {
                assertThat(queue.poll()).isEqualTo(round * 10 + i);
                next++;
            }
            assertThat(queue.poll()).isNull();
            assertThat(queue.isEmpty()).isTrue();
            assertThat(queue.size()).isZero();
        }
        assertThat(next).isEqualTo(2500);
    }

    @Test
    void drainTakesUpToTheLimitInOrderAndStopsWhenEmpty() {
        ManyToOneArrayQueue<String> queue = new ManyToOneArrayQueue<>(8);
        for (String s : List.of("a", "b", "c", "d", "e")) {
            queue.offer(s);
        }
        List<String> seen = new ArrayList<>();
        assertThat(queue.drain(seen::add, 3)).isEqualTo(3);
        assertThat(seen).containsExactly("a", "b", "c");
        assertThat(queue.drain(seen::add, 0)).isZero();
        assertThat(queue.drain(seen::add, 10)).isEqualTo(2);
        assertThat(seen).containsExactly("a", "b", "c", "d", "e");
        assertThat(queue.drain(seen::add, 10)).isZero();
        assertThat(queue.isEmpty()).isTrue();
        for (int i = 0; i < 8; i++) {
            assertThat(queue.offer("x" + i)).as("every slot free again").isTrue();
        }
    }

    @Test
    void anElementWhoseConsumerThrowsIsTakenAndTheRestStay() {
        ManyToOneArrayQueue<String> queue = new ManyToOneArrayQueue<>(4);
        queue.offer("bad");
        queue.offer("good");
        assertThatThrownBy(() -> queue.drain(s -> {
            throw new IllegalStateException(s);
        }, 4)).hasMessage("bad");
        assertThat(queue.poll()).isEqualTo("good");
        assertThat(queue.isEmpty()).isTrue();
    }

    /**
     * Four producers push 100,000 sequenced elements each through a ring of 64, spinning while it is full; the
     * consumer drains in batches. A lost claim, a slot reused before it was cleared, or an element read before it was
     * published shows as a missing, repeated or out-of-order element.
     */
    @Test
    void manyProducersOneConsumerEveryElementOnceInEachProducersOrder() throws Exception {
        int producers = 4;
        int perProducer = 100_000;
        ManyToOneArrayQueue<long[]> queue = new ManyToOneArrayQueue<>(64);
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long producer = p;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (long seq = 0; seq < perProducer; seq++) {
                        long[] element = {producer, seq};
                        while (!queue.offer(element)) {
                            Thread.yield();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "producer-" + p);
            thread.start();
            threads.add(thread);
        }
        long[] next = new long[producers];
        long[] received = {0};
        long total = (long) producers * perProducer;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        start.countDown();
        while (received[0] < total && System.nanoTime() < deadline && failure.get() == null) {
            int took = queue.drain(element -> {
                int producer = (int) element[0];
                if (element[1] != next[producer]) {
                    throw new AssertionError("producer " + producer + " sent " + element[1] + " where "
                            + next[producer] + " was due");
                }
                next[producer]++;
                received[0]++;
            }, 16);
            if (took == 0) {
                Thread.yield(); // two cores, four producers: let them run
            }
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(failure.get()).isNull();
        assertThat(received[0]).as("elements received").isEqualTo(total);
        assertThat(next).containsOnly(perProducer);
        assertThat(queue.poll()).as("nothing more").isNull();
        assertThat(queue.isEmpty()).isTrue();
    }
}
