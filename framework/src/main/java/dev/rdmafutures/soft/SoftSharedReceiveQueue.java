package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * A soft shared receive queue: receives posted in order, taken by the connections created with it, each on its own
 * poller thread, when a Send's first segment arrives (the connection keeps the receive until the Send's last
 * segment, while other connections take the next ones). A Send that finds the queue empty is held as on a
 * connection's own empty queue; its connection waits here and every post wakes all waiting connections on their
 * pollers, where one takes the receive and the others wait on (or end at the receive wait, NO_BUFFER). The limit
 * is checked after each take, as verbs devices do: once fewer receives than the armed threshold remain, the core
 * hears it once. Thread-safe; a lock guards the queue, and no callback runs under it.
 */
final class SoftSharedReceiveQueue implements ProviderSharedReceiveQueue {
    private final SharedReceiveQueueEvents events;
    private final ArrayDeque<WorkRequest> posted;
    /** Queue pairs holding a Send until a receive is posted; each is woken once per wait. */
    private final ArrayList<SoftQueuePair> waiting = new ArrayList<>();
    /** The armed limit, 0 when none. */
    private int threshold;
    private boolean closed;

    SoftSharedReceiveQueue(int depth, SharedReceiveQueueEvents events) {
        this.events = events;
        this.posted = new ArrayDeque<>(Math.min(depth, 1024)); // the core never posts more than depth
    }

    @Override
    public void post(WorkRequest receive) {
        synchronized (this) {
            if (!closed) {
                posted.add(receive);
                for (int i = 0; i < waiting.size(); i++) {
                    waiting.get(i).sharedReceivePosted(); // hands a command to its poller; does not block
                }
                waiting.clear();
                return;
            }
        }
        receive.completion().failed(new RdmaException(Status.CANCELED, "the shared receive queue is closed"));
    }

    /**
     * The oldest posted receive, now {@code taker}'s; null if none is posted, and then {@code taker} is woken
     * ({@link SoftQueuePair#sharedReceivePosted}) by the next post. Reports the limit once it is reached.
     */
    WorkRequest take(SoftQueuePair taker) {
        WorkRequest receive;
        int remaining;
        synchronized (this) {
            receive = posted.poll();
            if (receive == null) {
                if (!closed && !waiting.contains(taker)) {
                    waiting.add(taker);
                }
                return null;
            }
            remaining = posted.size();
            if (threshold == 0 || remaining >= threshold) {
                return receive;
            }
            threshold = 0;
        }
        events.onLimitReached(remaining);
        return receive;
    }

    /** {@code queuePair} ended: it waits no more. */
    synchronized void forget(SoftQueuePair queuePair) {
        waiting.remove(queuePair);
    }

    @Override
    public synchronized void armLimit(int limit) {
        this.threshold = limit;
    }

    @Override
    public synchronized int posted() {
        return posted.size();
    }

    @Override
    public void close() {
        WorkRequest[] canceled;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            threshold = 0;
            waiting.clear();
            canceled = posted.toArray(new WorkRequest[0]);
            posted.clear();
        }
        RdmaException error = new RdmaException(Status.CANCELED, "the shared receive queue was closed");
        for (WorkRequest receive : canceled) {
            receive.completion().failed(error);
        }
    }
}
