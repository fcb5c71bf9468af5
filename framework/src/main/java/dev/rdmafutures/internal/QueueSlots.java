package dev.rdmafutures.internal;

import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The initiator and receive slots of one connection, as NDK's QP has them: an operation takes one when posted, from
 * any thread, and gives it back when its outcome is reported; beyond the depth a post is refused with
 * {@link Status#INSUFFICIENT_RESOURCES} or waits ({@link SlotWaiters}). Lock-free and allocation-free while slots
 * are free.
 */
final class QueueSlots {
    private final QueueDepths depths;
    private final String hint;
    private final AtomicInteger initiatorInUse = new AtomicInteger();
    private final AtomicInteger receiveInUse = new AtomicInteger();

    /** Slots of {@code depths}; {@code hint} names where a refused caller learns more. */
    QueueSlots(QueueDepths depths, String hint) {
        this.depths = depths;
        this.hint = hint;
    }

    QueueDepths depths() {
        return depths;
    }

    /** Takes a slot of the queue {@code kind} goes to; false, nothing taken, when that queue is full. */
    boolean tryTake(WorkRequest.Kind kind) {
        boolean receive = kind == WorkRequest.Kind.RECEIVE;
        AtomicInteger inUse = receive ? receiveInUse : initiatorInUse;
        int depth = receive ? depths.receive() : depths.initiator();
        int used;
        do {
            used = inUse.get();
            if (used >= depth) {
                return false;
            }
        } while (!inUse.compareAndSet(used, used + 1));
        return true;
    }

    /** Why a post of {@code kind} that found its queue full is refused ({@link Status#INSUFFICIENT_RESOURCES}). */
    String refusalMessage(WorkRequest.Kind kind) {
        boolean receive = kind == WorkRequest.Kind.RECEIVE;
        return kind + " refused: all "
                + (receive ? depths.receive() : depths.initiator()) + " slots of the "
                + (receive ? "receive" : "initiator") + " queue are taken; post again once completions free some ("
                + hint + ")";
    }

    /** The most segments one operation of {@code kind} may carry. */
    int maxSegments(WorkRequest.Kind kind) {
        return kind == WorkRequest.Kind.RECEIVE ? depths.receiveSge() : depths.initiatorSge();
    }

    /** Gives back the slot an operation of {@code kind} took. */
    void release(WorkRequest.Kind kind) {
        (kind == WorkRequest.Kind.RECEIVE ? receiveInUse : initiatorInUse).decrementAndGet();
    }

    int availableInitiator() {
        return depths.initiator() - initiatorInUse.get();
    }

    int availableReceive() {
        return depths.receive() - receiveInUse.get();
    }
}
