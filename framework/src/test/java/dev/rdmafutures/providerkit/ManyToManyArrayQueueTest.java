package dev.rdmafutures.providerkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The shared receive queue's lock-free queue: bounded, first in first out, refuses nulls, and under several
 * producers racing several consumers through a small ring (full, empty and wrapping all the time) delivers every
 * element exactly once, each consumer seeing each producer's elements in the order they were offered.
 */
class ManyToManyArrayQueueTest {

    @Test
    void capacityIsTheNextPowerOfTwoAndBoundsTheQueue() {
        ManyToManyArrayQueue<Integer> queue = new ManyToManyArrayQueue<>(5);
        assertThat(queue.capacity()).isEqualTo(8);
        for (int i = 0; i < 8; i++) {
            assertThat(queue.offer(i)).as("offer %d", i).isTrue();
        }
        assertThat(queue.offer(8)).as("full").isFalse();
        assertThat(queue.size()).isEqualTo(8);
        assertThat(queue.poll()).isEqualTo(0);
        assertThat(queue.offer(8)).as("one slot freed").isTrue();
        assertThat(queue.offer(9)).isFalse();
        assertThat(new ManyToManyArrayQueue<>(2).capacity()).isEqualTo(2);
        assertThat(new ManyToManyArrayQueue<>(16 * 1024).capacity()).isEqualTo(16 * 1024);
    }

    @Test
    void refusesABadCapacityAndNullElements() {
        assertThatThrownBy(() -> new ManyToManyArrayQueue<>(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ManyToManyArrayQueue<>((1 << 30) + 1))
                .isInstanceOf(IllegalArgumentException.class);
        ManyToManyArrayQueue<Object> queue = new ManyToManyArrayQueue<>(4);
        assertThatThrownBy(() -> queue.offer(null)).isInstanceOf(NullPointerException.class);
        assertThat(queue.size()).isZero();
        assertThat(queue.poll()).isNull();
    }

    @Test
    void keepsOrderAcrossManyWrapsOfTheRing() {
        ManyToManyArrayQueue<Integer> queue = new ManyToManyArrayQueue<>(4);
        int taken = 0;
        for (int round = 0; round < 1000; round++) {
            int offered = round % 4 + 1;
            for (int i = 0; i < offered; i++) {
                assertThat(queue.offer(round * 10 + i)).isTrue();
            }
            assertThat(queue.size()).isEqualTo(offered);
            for (int i = 0; i < offered; i++) {
                assertThat(queue.poll()).isEqualTo(round * 10 + i);
                taken++;
            }
            assertThat(queue.poll()).isNull();
            assertThat(queue.size()).isZero();
        }
        assertThat(taken).isEqualTo(2500);
    }

    /**
     * Two producers push 100,000 sequenced elements each through a ring of 16 while two consumers take them,
     * everyone spinning on a full or empty ring. A lost or doubled claim, a slot reused before it was freed, or an
     * element read before it was published shows as a missing, repeated or (for one consumer) out-of-order element.
     * Producers offer only while fewer than the capacity are held, as a shared receive queue's slots allow: an offer
     * refused then (a consumer between its claim and the slot's release) fails the test.
     */
    @Test
    void manyProducersManyConsumersEveryElementExactlyOnce() throws Exception {
        int producers = 2;
        int consumers = 2;
        int perProducer = 100_000;
        long total = (long) producers * perProducer;
        ManyToManyArrayQueue<long[]> queue = new ManyToManyArrayQueue<>(16);
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong received = new AtomicLong();
        AtomicInteger inQueue = new AtomicInteger();
        long[][] seenPerProducer = new long[consumers][producers];
        boolean[][] seen = new boolean[producers][perProducer];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long producer = p;
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    for (long seq = 0; seq < perProducer && failure.get() == null; seq++) {
                        long[] element = {producer, seq};
                        int held;
                        do { // room for one more, counted as the shared receive queue's slots count it
                            held = inQueue.get();
                            if (System.nanoTime() > deadline) {
                                throw new AssertionError("producer " + producer + " stuck on a full queue");
                            }
                        } while (held >= queue.capacity() || !inQueue.compareAndSet(held, held + 1));
                        if (!queue.offer(element)) {
                            throw new AssertionError("refused with " + held + " of " + queue.capacity() + " held");
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "producer-" + p));
        }
        for (int c = 0; c < consumers; c++) {
            long[] last = seenPerProducer[c];
            Arrays.fill(last, -1);
            int consumer = c;
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    while (received.get() < total && failure.get() == null && System.nanoTime() < deadline) {
                        long[] element = queue.poll();
                        if (element == null) {
                            Thread.onSpinWait();
                            continue;
                        }
                        inQueue.decrementAndGet();
                        int producer = (int) element[0];
                        int seq = (int) element[1];
                        if (seq <= last[producer]) {
                            throw new AssertionError("consumer " + consumer + " took " + seq + " of producer "
                                    + producer + " after " + last[producer]);
                        }
                        last[producer] = seq;
                        synchronized (seen) {
                            if (seen[producer][seq]) {
                                throw new AssertionError("element " + seq + " of producer " + producer + " twice");
                            }
                            seen[producer][seq] = true;
                        }
                        received.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "consumer-" + c));
        }
        for (Thread thread : threads) {
            thread.setDaemon(true); // a broken queue can spin a thread inside poll for good: it must not hold the JVM
            thread.start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1000));
        }
        assertThat(failure.get()).isNull();
        assertThat(received.get()).as("elements received").isEqualTo(total);
        assertThat(queue.poll()).as("nothing more").isNull();
        assertThat(queue.size()).isZero();
    }
}
