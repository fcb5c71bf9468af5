package dev.rdmafutures.internal.poller;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A bounded, lock-free queue for many producer threads and one consumer thread, on an array of references: an offer
 * claims a slot by a CAS on the tail and publishes the element with a release store; the consumer takes it with an
 * acquire load, clears the slot and advances the head with a release store. Neither side allocates. The algorithm is
 * Agrona's {@code ManyToOneConcurrentArrayQueue}; ours is written on {@link VarHandle}s because Agrona 1.x reaches
 * the array and the indices through {@code sun.misc.Unsafe}, which JDK 24 and later warn about on first use (JEP 498)
 * and which Agrona 2.x replaced by {@code jdk.internal.misc.Unsafe}, which needs
 * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} on every application's command line (the parent
 * POM says why not JCTools).
 *
 * <p>An element claimed but not yet published leaves the queue not {@link #isEmpty empty} while {@link #poll} still
 * returns null: the consumer sees each producer's elements in the order it offered them, and stops at the first slot
 * not yet written. Null elements are refused.
 *
 * <p>Internal: public only so that the benchmarks (framework-jmh) can measure it. Not API.
 *
 * @param <E> the element type
 */
public final class ManyToOneArrayQueue<E> extends ManyToOneArrayQueuePadAfter {
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;
    private static final VarHandle HEAD_CACHE;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(ManyToOneArrayQueueTail.class, "tail", long.class);
            HEAD = lookup.findVarHandle(ManyToOneArrayQueueHead.class, "head", long.class);
            HEAD_CACHE = lookup.findVarHandle(ManyToOneArrayQueueHeadCache.class, "headCache", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] slots;
    private final int mask;
    private final int capacity;

    /**
     * A queue of at least {@code capacity} elements: the next power of two.
     *
     * @param capacity the fewest elements the queue holds, 2 to 2<sup>30</sup>
     */
    public ManyToOneArrayQueue(int capacity) {
        if (capacity < 2 || capacity > 1 << 30) {
            throw new IllegalArgumentException("capacity must be 2 to 2^30: " + capacity);
        }
        this.capacity = Integer.highestOneBit(capacity - 1) << 1;
        this.mask = this.capacity - 1;
        this.slots = new Object[this.capacity];
    }

    /** How many elements the queue holds when full. */
    public int capacity() {
        return capacity;
    }

    /**
     * Adds an element unless the queue is full. Any thread; lock-free, no allocation.
     *
     * @param element not null
     * @return false if the queue was full
     */
    public boolean offer(E element) {
        Objects.requireNonNull(element, "element");
        long limit = (long) HEAD_CACHE.getAcquire(this) + capacity;
        long tail;
        do {
            tail = (long) TAIL.getVolatile(this);
            if (tail >= limit) {
                long head = (long) HEAD.getVolatile(this);
                limit = head + capacity;
                if (tail >= limit) {
                    return false;
                }
                HEAD_CACHE.setRelease(this, head); // with the consumer's cleared slots, for the next producer
            }
        } while (!TAIL.compareAndSet(this, tail, tail + 1));
        SLOT.setRelease(slots, (int) tail & mask, element);
        return true;
    }

    /**
     * Takes the oldest published element. The consumer thread only.
     *
     * @return the element, or null if none is published at the head
     */
    @SuppressWarnings("unchecked")
    public E poll() {
        long head = (long) HEAD.get(this);
        int index = (int) head & mask;
        Object element = SLOT.getAcquire(slots, index);
        if (element == null) {
            return null;
        }
        SLOT.set(slots, index, null); // ordered before the head's release store: no producer reuses the slot first
        HEAD.setRelease(this, head + 1);
        return (E) element;
    }

    /**
     * Takes up to {@code limit} published elements, oldest first, and hands each to {@code consumer} after taking it
     * (a consumer that throws loses only its own element). The consumer thread only; no allocation.
     *
     * @return how many were taken
     */
    @SuppressWarnings("unchecked")
    public int drain(Consumer<? super E> consumer, int limit) {
        long first = (long) HEAD.get(this);
        long head = first;
        long end = first + Math.max(limit, 0);
        while (head < end) {
            int index = (int) head & mask;
            Object element = SLOT.getAcquire(slots, index);
            if (element == null) {
                break;
            }
            SLOT.set(slots, index, null);
            head++;
            HEAD.setRelease(this, head);
            consumer.accept((E) element);
        }
        return (int) (head - first);
    }

    /** Whether no element is claimed or published; exact only when producers are not offering at the same time. */
    public boolean isEmpty() {
        return (long) HEAD.getVolatile(this) == (long) TAIL.getVolatile(this);
    }

    /** How many elements are claimed or published; a snapshot while producers offer. */
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

// The indices, each on cache lines of its own (128 bytes apart, as the adjacent-line prefetcher pairs 64-byte
// lines): producers CAS the tail, the consumer stores the head, and producers keep a cached head beside neither.
// The JVM lays a superclass's fields before a subclass's, so the padding stays where it is declared.

abstract class ManyToOneArrayQueuePadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

abstract class ManyToOneArrayQueueTail extends ManyToOneArrayQueuePadBefore {
    volatile long tail;
}

abstract class ManyToOneArrayQueuePadTail extends ManyToOneArrayQueueTail {
    long p16, p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31;
}

abstract class ManyToOneArrayQueueHeadCache extends ManyToOneArrayQueuePadTail {
    volatile long headCache;
}

abstract class ManyToOneArrayQueuePadHeadCache extends ManyToOneArrayQueueHeadCache {
    long p32, p33, p34, p35, p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47;
}

abstract class ManyToOneArrayQueueHead extends ManyToOneArrayQueuePadHeadCache {
    volatile long head;
}

abstract class ManyToOneArrayQueuePadAfter extends ManyToOneArrayQueueHead {
    long p48, p49, p50, p51, p52, p53, p54, p55, p56, p57, p58, p59, p60, p61, p62, p63;
}
