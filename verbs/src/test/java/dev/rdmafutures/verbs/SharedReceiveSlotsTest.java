package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.SharedReceiveSlots.Slot;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The verbs shared receive queue's slot table, on a host without devices: bounded by its depth, a slot's receive
 * released to exactly one of the threads racing for it, and a claim never refused while fewer than the depth are
 * held, with threads claiming and releasing on a table of depth 2 all the time.
 */
class SharedReceiveSlotsTest {

    @Test
    void claimsUpToTheDepthAndAgainOnceOneIsReleased() {
        SharedReceiveSlots table = new SharedReceiveSlots(3);
        Set<Integer> indexes = new HashSet<>();
        Slot[] claimed = new Slot[3];
        for (int i = 0; i < 3; i++) {
            claimed[i] = table.claim(receive(i));
            assertThat(claimed[i]).as("claim %d", i).isNotNull();
            assertThat(claimed[i].receive()).isEqualTo(receive(i));
            assertThat(table.slot(claimed[i].index)).isSameAs(claimed[i]);
            indexes.add(claimed[i].index);
        }
        assertThat(indexes).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(table.held()).isEqualTo(3);
        assertThat(table.claim(receive(3))).as("full").isNull();
        assertThat(table.release(claimed[1])).isEqualTo(receive(1));
        assertThat(table.release(claimed[1])).as("released already").isNull();
        assertThat(table.held()).isEqualTo(2);
        assertThat(table.claim(receive(4))).isSameAs(claimed[1]);
        assertThat(table.slot(-1)).isNull();
        assertThat(table.slot(3)).isNull();
    }

    /** A completion and a close race for each slot: one of them gets the receive, and the slot is freed once. */
    @Test
    void aReleaseRaceHasOneWinner() throws Exception {
        SharedReceiveSlots table = new SharedReceiveSlots(1);
        for (int round = 0; round < 2_000; round++) {
            NamedRequest receive = receive(round);
            Slot slot = table.claim(receive);
            assertThat(slot).isNotNull();
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger winners = new AtomicInteger();
            Runnable racer = () -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (table.release(slot) == receive) {
                    winners.incrementAndGet();
                }
            };
            Thread other = new Thread(racer);
            other.start();
            start.countDown();
            racer.run();
            other.join(10_000);
            assertThat(winners.get()).as("round %d", round).isEqualTo(1);
            assertThat(table.held()).isZero();
        }
    }

    /**
     * Two threads each hold at most one slot of two, claiming and releasing as fast as they can: every claim finds a
     * slot (also when the other thread is between freeing its slot and releasing its count), and no slot is held by
     * both at once.
     */
    @Test
    void aClaimBelowTheDepthIsNeverRefused() throws Exception {
        SharedReceiveSlots table = new SharedReceiveSlots(2);
        int rounds = 200_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger[] holders = {new AtomicInteger(), new AtomicInteger()};
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[2];
        for (int t = 0; t < 2; t++) {
            int me = t;
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                    NamedRequest mine = receive(me);
                    for (int i = 0; i < rounds && failure.get() == null; i++) {
                        Slot slot = table.claim(mine);
                        if (slot == null) {
                            throw new AssertionError("refused with " + table.held() + " of 2 held, round " + i);
                        }
                        if (holders[slot.index].getAndIncrement() != 0) {
                            throw new AssertionError("slot " + slot.index + " held twice");
                        }
                        holders[slot.index].decrementAndGet();
                        if (table.release(slot) != mine) {
                            throw new AssertionError("slot " + slot.index + " gave back another receive");
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "claimer-" + t);
            threads[t].setDaemon(true);
            threads[t].start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failure.get()).isNull();
        assertThat(threads).noneMatch(Thread::isAlive);
        assertThat(table.held()).isZero();
    }

    /** A receive as the core hands one over; only its identity matters here. */
    private static NamedRequest receive(int id) {
        return new NamedRequest(WorkRequest.Kind.RECEIVE, "receive " + id);
    }
}
