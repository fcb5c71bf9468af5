package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.providerkit.ManyToManyArrayQueue;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.WorkRequest;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A soft shared receive queue: receives posted in order, taken by the connections created with it, each on its own
 * poller thread, when a Send's first segment arrives (the connection keeps the receive until the Send's last
 * segment, while other connections take the next ones). A Send that finds the queue empty is held as on a
 * connection's own empty queue; its connection waits here and the next post wakes all waiting connections on their
 * pollers, where one takes the receive and the others wait on (or end at the receive wait, NO_BUFFER). The limit
 * is checked after each take, as verbs devices do: once fewer receives than the armed threshold remain, the core
 * hears it once.
 *
 * <p>Thread-safe, and a post or a take that finds a receive takes no lock: the receives wait in a lock-free queue
 * ({@link ManyToManyArrayQueue}). Only a connection that finds none, and the post that wakes it, take the lock of
 * the waiting list; no callback runs under it.
 */
final class SoftSharedReceiveQueue implements ProviderSharedReceiveQueue {
    private final SharedReceiveQueueEvents events;
    private final ManyToManyArrayQueue<WorkRequest> posted;
    /** Queue pairs holding a Send until a receive is posted; each is woken once per wait. Guarded by itself. */
    private final ArrayList<SoftQueuePair> waiting = new ArrayList<>();
    /** Whether {@link #waiting} may hold a queue pair: read by every post, so that only a post with waiters locks. */
    private volatile boolean anyWaiting;
    /** The armed limit, 0 when none; whoever sets it back to 0 from a threshold reports it. */
    private final AtomicInteger threshold = new AtomicInteger();
    private volatile boolean closed;

    SoftSharedReceiveQueue(int depth, SharedReceiveQueueEvents events) {
        this.events = events;
        this.posted = new ManyToManyArrayQueue<>(Math.max(2, depth)); // the core never posts more than depth
    }

    @Override
    public void post(WorkRequest receive) {
        if (!posted.offer(receive)) {
            receive.completion().failed(new RdmaException(Status.INSUFFICIENT_RESOURCES,
                    "the shared receive queue holds " + posted.capacity() + " receives already"));
            return;
        }
        // Orders the offer before the reads below: a take that found the queue empty lists itself and then looks
        // again, so either it sees this receive or this post sees it waiting (and a close, the receive).
        VarHandle.fullFence();
        if (closed) {
            cancelPosted(); // a close that raced this post may have drained the queue before the offer
            return;
        }
        if (anyWaiting) {
            wakeWaiting();
        }
    }

    private void wakeWaiting() {
        synchronized (waiting) {
            for (int i = 0; i < waiting.size(); i++) {
                waiting.get(i).sharedReceivePosted(); // hands a command to its poller; does not block
            }
            waiting.clear();
            anyWaiting = false;
        }
    }

    /**
     * The oldest posted receive, now {@code taker}'s; null if none is posted, and then {@code taker} is woken
     * ({@link SoftQueuePair#sharedReceivePosted}) by the next post. Reports the limit once it is reached.
     */
    WorkRequest take(SoftQueuePair taker) {
        WorkRequest receive = posted.poll();
        if (receive == null) {
            synchronized (waiting) {
                if (closed) {
                    return null;
                }
                if (!waiting.contains(taker)) {
                    waiting.add(taker);
                }
                anyWaiting = true;
            }
            VarHandle.fullFence(); // the listing before the second look; see post
            receive = posted.poll();
            if (receive == null) {
                return null;
            }
            forget(taker); // a post between the two looks; if it woke us already, the wake finds nothing held
        }
        checkLimit();
        return receive;
    }

    private void checkLimit() {
        int armed = threshold.get();
        if (armed == 0) {
            return;
        }
        int remaining = posted.size();
        if (remaining < armed && threshold.compareAndSet(armed, 0)) {
            events.onLimitReached(remaining);
        }
    }

    /** {@code queuePair} ended, or found its receive: it waits no more. */
    void forget(SoftQueuePair queuePair) {
        synchronized (waiting) {
            waiting.remove(queuePair);
        }
    }

    @Override
    public void armLimit(int limit) {
        threshold.set(limit);
    }

    @Override
    public void close() {
        synchronized (waiting) {
            if (closed) {
                return;
            }
            closed = true;
            waiting.clear();
            anyWaiting = false;
        }
        threshold.set(0);
        VarHandle.fullFence(); // closed before the drain's look; see post
        cancelPosted();
    }

    /** Fails every receive still posted; each is taken by exactly one caller, so none fails twice. */
    private void cancelPosted() {
        RdmaException error = null;
        for (WorkRequest receive = posted.poll(); receive != null; receive = posted.poll()) {
            if (error == null) {
                error = new RdmaException(Status.CANCELED, "the shared receive queue was closed");
            }
            receive.completion().failed(error);
        }
    }
}
