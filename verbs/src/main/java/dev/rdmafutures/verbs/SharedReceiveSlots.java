package dev.rdmafutures.verbs;

import dev.rdmafutures.providerkit.ManyToManyArrayQueue;
import dev.rdmafutures.spi.WorkRequest;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The table of a {@link VerbsSharedReceiveQueue}'s posted receives, claimed and released by any thread without a
 * lock: a posted receive holds a {@link Slot}, whose index is its work-request id, until the completion that names
 * the slot or a refused post releases it, or the queue's close retires it. Free slots wait in a lock-free ring. The
 * count is reserved before a slot is taken from the ring and released after the slot is back in it, so a claim
 * within the depth always finds a slot, at worst after waiting out another thread's few instructions between its
 * claim in the ring and its publication. Nothing is allocated per receive.
 */
final class SharedReceiveSlots {
    private final Slot[] slots;
    private final ManyToManyArrayQueue<Slot> free;
    /** Receives holding a slot. */
    private final AtomicInteger held = new AtomicInteger();

    SharedReceiveSlots(int depth) {
        this.slots = new Slot[depth];
        this.free = new ManyToManyArrayQueue<>(Math.max(2, depth));
        for (int i = 0; i < depth; i++) {
            slots[i] = new Slot(i);
            free.offer(slots[i]);
        }
    }

    /** How many receives hold a slot now. */
    int held() {
        return held.get();
    }

    /** The slot a completion's work-request id names, or null for one that names none. */
    Slot slot(int index) {
        return index >= 0 && index < slots.length ? slots[index] : null;
    }

    /** A slot that holds {@code receive} from now on, or null when every slot is held. */
    Slot claim(WorkRequest receive) {
        int now;
        do {
            now = held.get();
            if (now >= slots.length) {
                return null;
            }
        } while (!held.compareAndSet(now, now + 1));
        Slot slot;
        while ((slot = free.poll()) == null) {
            Thread.onSpinWait(); // a slot being freed is between its claim in the ring and its publication
        }
        slot.hold(receive);
        return slot;
    }

    /**
     * Empties {@code slot} and frees it; returns its receive to exactly one of the threads that race for it (a
     * completion, a refused post, a close), null to the others.
     */
    WorkRequest release(Slot slot) {
        WorkRequest receive = slot.empty();
        if (receive != null) {
            free.offer(slot); // never refused: the ring has room for every slot
            held.decrementAndGet(); // after the slot is back: see claim
        }
        return receive;
    }

    /**
     * Empties {@code slot} for good, as a close does: the device may still hold its receive and name the slot in a
     * completion, which then finds it empty instead of holding another receive. Returns the receive as
     * {@link #release} does.
     */
    WorkRequest retire(Slot slot) {
        return slot.empty();
    }

    /** One entry of the table: the receive that holds it, whose work-request id is {@link #index}. */
    static final class Slot {
        private static final VarHandle RECEIVE;

        static {
            try {
                RECEIVE = MethodHandles.lookup().findVarHandle(Slot.class, "receive", WorkRequest.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final int index;
        @SuppressWarnings("unused") // through RECEIVE
        private volatile WorkRequest receive;

        private Slot(int index) {
            this.index = index;
        }

        private void hold(WorkRequest posted) {
            RECEIVE.setVolatile(this, posted);
        }

        /** The receive holding the slot, null once released. */
        WorkRequest receive() {
            return (WorkRequest) RECEIVE.getVolatile(this);
        }

        private WorkRequest empty() {
            return (WorkRequest) RECEIVE.getAndSet(this, (WorkRequest) null);
        }
    }
}
