package dev.rdmafutures.providerkit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A bounded, lock-free first-in-first-out queue for many producer and many consumer threads, on an array of
 * references: a provider's shared receive queue, posted on one poller and taken from by the connections of all of
 * them. Each slot carries a sequence number that says whose turn it is (Dmitry Vyukov's bounded MPMC queue): a
 * producer claims the tail by a CAS when the slot's sequence equals it, writes the element and publishes it by
 * storing sequence + 1 with release; a consumer claims the head by a CAS when the slot's sequence is head + 1, takes
 * the element and frees the slot for the next lap by storing head + capacity. Neither side allocates.
 *
 * <p>Written on {@link VarHandle}s for the reason the poller's own queue is (the parent POM: no {@code sun.misc.Unsafe},
 * no runtime dependency). An element claimed but not yet published makes {@link #poll} return null for a moment; a
 * caller that waits for elements must re-check after making itself known (see the soft shared receive queue). Null
 * elements are refused.
 *
 * @param <E> the element type
 */
public final class ManyToManyArrayQueue<E> extends ManyToManyArrayQueuePadAfter {
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(ManyToManyArrayQueueTail.class, "tail", long.class);
            HEAD = lookup.findVarHandle(ManyToManyArrayQueueHead.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] slots;
    private final long[] sequences;
    private final int mask;
    private final int capacity;

    /**
     * A queue of at least {@code capacity} elements: the next power of two.
     *
     * @param capacity the fewest elements the queue holds, 2 to 2<sup>30</sup>
     */
    public ManyToManyArrayQueue(int capacity) {
        if (capacity < 2 || capacity > 1 << 30) {
            throw new IllegalArgumentException("capacity must be 2 to 2^30: " + capacity);
        }
        this.capacity = Integer.highestOneBit(capacity - 1) << 1;
        this.mask = this.capacity - 1;
        this.slots = new Object[this.capacity];
        this.sequences = new long[this.capacity];
        for (int i = 0; i < this.capacity; i++) {
            sequences[i] = i; // published with the final field that holds them
        }
    }

    /** How many elements the queue holds when full. */
    public int capacity() {
        return capacity;
    }

    /**
     * Adds an element unless the queue is full. Any thread; no allocation. Lock-free but for one wait: when a
     * consumer has claimed the oldest element and not yet released its slot, the producer that needs that slot
     * spins until it is released, so a queue that holds fewer than its capacity never refuses.
     *
     * @param element not null
     * @return false if the queue was full
     */
    public boolean offer(E element) {
        Objects.requireNonNull(element, "element");
        while (true) {
            long tail = (long) TAIL.getVolatile(this);
            int index = (int) tail & mask;
            long turn = (long) SEQUENCE.getAcquire(sequences, index) - tail;
            if (turn == 0) {
                if (TAIL.compareAndSet(this, tail, tail + 1)) {
                    SLOT.set(slots, index, element);
                    SEQUENCE.setRelease(sequences, index, tail + 1); // publishes the element
                    return true;
                }
            } else if (turn < 0) {
                if (tail - (long) HEAD.getVolatile(this) >= capacity) {
                    return false; // the slot still holds the element of the lap before: full
                }
                // A consumer claimed the element of the lap before and is between its claim and the slot's release:
                // the queue is not full, so wait for those few instructions rather than refuse.
                Thread.onSpinWait();
            }
            // otherwise another producer claimed this tail first; read the new one
        }
    }

    /**
     * Takes the oldest published element. Any thread; lock-free, no allocation.
     *
     * @return the element, or null if none is published at the head
     */
    @SuppressWarnings("unchecked")
    public E poll() {
        while (true) {
            long head = (long) HEAD.getVolatile(this);
            int index = (int) head & mask;
            long turn = (long) SEQUENCE.getAcquire(sequences, index) - (head + 1);
            if (turn == 0) {
                if (HEAD.compareAndSet(this, head, head + 1)) {
                    Object element = SLOT.get(slots, index);
                    SLOT.set(slots, index, null);
                    SEQUENCE.setRelease(sequences, index, head + capacity); // the slot is the next lap's
                    return (E) element;
                }
            } else if (turn < 0) {
                return null; // not published yet: empty, or a producer between its claim and its publication
            }
            // turn > 0: another consumer took this head first; read the new one
        }
    }

    /** How many elements are claimed and not yet taken; a snapshot while others offer or poll. */
    public int size() {
        long headAfter = (long) HEAD.getVolatile(this);
        while (true) {
            long headBefore = headAfter;
            long tail = (long) TAIL.getVolatile(this);
            headAfter = (long) HEAD.getVolatile(this);
            if (headBefore == headAfter) {
                return (int) Math.max(0, Math.min(tail - headAfter, capacity));
            }
        }
    }
}

// The indices on cache lines of their own (128 bytes apart, as the adjacent-line prefetcher pairs 64-byte lines):
// producers CAS the tail and consumers the head. The JVM lays a superclass's fields before a subclass's.

abstract class ManyToManyArrayQueuePadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class ManyToManyArrayQueueTail extends ManyToManyArrayQueuePadBefore {
    volatile long tail;
}

abstract class ManyToManyArrayQueuePadTail extends ManyToManyArrayQueueTail {
    long p16, p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31;
}

abstract class ManyToManyArrayQueueHead extends ManyToManyArrayQueuePadTail {
    volatile long head;
}

abstract class ManyToManyArrayQueuePadAfter extends ManyToManyArrayQueueHead {
    long p32, p33, p34, p35, p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47;
}
