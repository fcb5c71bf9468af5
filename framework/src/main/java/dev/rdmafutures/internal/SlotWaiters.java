package dev.rdmafutures.internal;

import dev.rdmafutures.Admission;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.Poller;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.WorkRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operations of one connection that wait for a slot under {@link Admission#waitForSlot}: one queue per work
 * queue (initiator, receive), in arrival order, on the connection's poller thread. A posting thread reserves a place
 * ({@link #tryReserve}) and hands the operation to the poller like any other; there it {@link #arrive}s, and it leaves
 * as soon as a slot frees ({@link #slotFreed} queues an admission pass), when its wait reaches the admission's
 * bound (INSUFFICIENT_RESOURCES), or when its connection ends or the runtime's poller stops (CANCELED). The queues
 * belong to the poller thread; the methods are synchronized only because a refused admission pass fails the
 * waiters on the thread that found the poller stopped.
 */
final class SlotWaiters {
    private final OperationTarget target;
    private final PollerProxy poller;
    private final long maxWaitNanos;
    private final int maxWaiters;
    /**
     * Reserved places per work queue: posted to wait and not yet admitted or ended, in transit to the poller
     * included. Per queue, as the bound is, so that a receive never queues behind a waiting READ.
     */
    private final AtomicInteger initiatorReserved = new AtomicInteger();
    private final AtomicInteger receiveReserved = new AtomicInteger();
    private final AtomicBoolean admissionQueued = new AtomicBoolean();
    private final Runnable admission = this::admit;
    private final Runnable expiry = this::expire;
    private final ArrayDeque<CallbackOperation> initiator = new ArrayDeque<>();
    private final ArrayDeque<CallbackOperation> receive = new ArrayDeque<>();
    /** The scheduled check of the oldest waiter's bound; null while nobody waits. */
    private Cancellable nextExpiry;

    SlotWaiters(OperationTarget target, PollerProxy poller, Admission admission) {
        this.target = target;
        this.poller = poller;
        this.maxWaitNanos = admission.maxWait().toNanos();
        this.maxWaiters = admission.maxWaiters();
    }

    /** Whether an operation of {@code kind}'s queue waits: a new post queues behind it, in arrival order. */
    boolean anyWaiting(WorkRequest.Kind kind) {
        return reserved(kind).get() > 0;
    }

    /**
     * Reserves a place for an operation of {@code kind} that found no slot, or someone waiting; false, nothing
     * reserved, when {@code maxWaiters} already wait ({@link #fullMessage} says so).
     */
    boolean tryReserve(WorkRequest.Kind kind) {
        AtomicInteger reserved = reserved(kind);
        int n;
        do {
            n = reserved.get();
            if (n >= maxWaiters) {
                return false;
            }
        } while (!reserved.compareAndSet(n, n + 1));
        return true;
    }

    /** The time by which an operation reserving its place now must be admitted, on the poller's ticker. */
    long deadline() {
        return poller.poller().nanoTime() + maxWaitNanos;
    }

    /** Why a post of {@code kind} that found every waiting place taken is refused (INSUFFICIENT_RESOURCES). */
    String fullMessage(WorkRequest.Kind kind) {
        return kind + " refused: its queue has no free slot and " + maxWaiters + " operations already wait for one, "
                + "the most Admission.waitForSlot allows";
    }

    /** Gives back a place reserved for an operation of {@code kind} that never arrived (its post was refused). */
    void unreserve(WorkRequest.Kind kind) {
        reserved(kind).decrementAndGet();
    }

    /** On the poller: a waiting operation arrives, last in its queue, and is admitted at once if a slot is free. */
    synchronized void arrive(CallbackOperation op) {
        queue(op.kind()).add(op);
        if (nextExpiry == null) {
            scheduleExpiry(op.admitBy());
        }
        admit();
    }

    /** A slot of {@code kind}'s queue was given back, on any thread: if someone waits there, an admission pass runs. */
    void slotFreed(WorkRequest.Kind kind) {
        if (reserved(kind).get() == 0 || !admissionQueued.compareAndSet(false, true)) {
            return;
        }
        if (!poller.post(admission)) {
            admissionQueued.set(false);
            endAll(PollerProxy.runtimeClosed(Status.CANCELED, "an operation waiting for a slot"));
        }
    }

    /** Hands the oldest waiters to the target while slots are free. */
    private synchronized void admit() {
        admissionQueued.set(false);
        if (target.isEnding()) {
            endAll(new RdmaException(Status.CANCELED, "the connection ended before a slot freed for the operation"));
            return;
        }
        admitFrom(initiator);
        admitFrom(receive);
        if (initiator.isEmpty() && receive.isEmpty() && nextExpiry != null) {
            nextExpiry.cancel();
            nextExpiry = null;
        }
    }

    private void admitFrom(ArrayDeque<CallbackOperation> queue) {
        CallbackOperation op;
        while ((op = queue.peek()) != null && target.slots().tryTake(op.kind())) {
            queue.poll();
            reserved(op.kind()).decrementAndGet();
            op.admitted(); // submits: a target that ended fails it CANCELED, which frees the slot for the next
        }
    }

    /** Ends every waiter whose bound has passed with INSUFFICIENT_RESOURCES, then watches the next oldest. */
    private synchronized void expire() {
        nextExpiry = null;
        long now = poller.poller().nanoTime();
        expireFrom(initiator, now);
        expireFrom(receive, now);
        CallbackOperation a = initiator.peek();
        CallbackOperation b = receive.peek();
        if (a == null || b != null && b.admitBy() - a.admitBy() < 0) {
            a = b; // the oldest head: each queue is in admitBy order, as every waiter waits the same bound
        }
        if (a != null) {
            scheduleExpiry(a.admitBy());
        }
    }

    private void expireFrom(ArrayDeque<CallbackOperation> queue, long now) {
        CallbackOperation op;
        while ((op = queue.peek()) != null && op.admitBy() - now <= 0) {
            queue.poll();
            reserved(op.kind()).decrementAndGet();
            op.failed(new RdmaException(Status.INSUFFICIENT_RESOURCES, op.kind() + " waited "
                    + Duration.ofNanos(maxWaitNanos).toMillis() + " ms for a slot of a full queue and got none "
                    + "(Admission.waitForSlot)"));
        }
    }

    private void scheduleExpiry(long dueNanos) {
        Poller owner = poller.poller();
        nextExpiry = owner.schedule(Duration.ofNanos(Math.max(0, dueNanos - owner.nanoTime())), expiry);
    }

    /** Ends every waiter with {@code error}; the scheduled check of their bound is dropped. */
    private synchronized void endAll(RdmaException error) {
        if (nextExpiry != null && poller.inPollerThread()) {
            nextExpiry.cancel();
            nextExpiry = null;
        }
        for (ArrayDeque<CallbackOperation> queue : List.of(initiator, receive)) {
            CallbackOperation op;
            while ((op = queue.poll()) != null) {
                reserved(op.kind()).decrementAndGet();
                op.failed(error);
            }
        }
    }

    private AtomicInteger reserved(WorkRequest.Kind kind) {
        return kind == WorkRequest.Kind.RECEIVE ? receiveReserved : initiatorReserved;
    }

    private ArrayDeque<CallbackOperation> queue(WorkRequest.Kind kind) {
        return kind == WorkRequest.Kind.RECEIVE ? receive : initiator;
    }
}
