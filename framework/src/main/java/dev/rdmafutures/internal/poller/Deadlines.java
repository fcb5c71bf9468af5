package dev.rdmafutures.internal.poller;

import dev.rdmafutures.spi.Cancellable;
import java.util.PriorityQueue;

/**
 * Deadlines owned by one poller thread: a min-heap by due time, cancelled entries dropped lazily when they reach
 * the head and purged in bulk when they pile up. Not thread-safe by design.
 */
final class Deadlines {
    private final PriorityQueue<Deadline> heap = new PriorityQueue<>();
    private int cancelled;
    private long sequence;

    Cancellable schedule(long dueNanos, Runnable task) {
        Deadline d = new Deadline(dueNanos, sequence++, task);
        heap.add(d);
        return d;
    }

    /** Runs every deadline due at {@code nowNanos}; returns how many ran. */
    int runDue(long nowNanos, DutyCycleErrors errors) {
        int ran = 0;
        Deadline head;
        while ((head = heap.peek()) != null && (head.cancelled || head.dueNanos - nowNanos <= 0)) {
            heap.poll();
            if (head.cancelled) {
                cancelled--;
                continue;
            }
            head.cancelled = true;
            Runnable task = head.task;
            head.task = null;
            try {
                task.run();
            } catch (Throwable t) {
                errors.record("deadline task", t);
            }
            ran++;
        }
        return ran;
    }

    /** Nanoseconds until the next live deadline, or {@code Long.MAX_VALUE} when none is pending. */
    long nanosUntilNext(long nowNanos) {
        Deadline head;
        while ((head = heap.peek()) != null && head.cancelled) {
            heap.poll();
            cancelled--;
        }
        return head == null ? Long.MAX_VALUE : Math.max(0, head.dueNanos - nowNanos);
    }

    int pending() {
        return heap.size() - cancelled;
    }

    private void onCancel() {
        if (++cancelled > 64 && cancelled > heap.size() / 2) {
            heap.removeIf(d -> d.cancelled);
            cancelled = 0;
        }
    }

    private final class Deadline implements Comparable<Deadline>, Cancellable {
        final long dueNanos;
        final long seq;
        Runnable task;
        boolean cancelled;

        Deadline(long dueNanos, long seq, Runnable task) {
            this.dueNanos = dueNanos;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public void cancel() {
            if (!cancelled) {
                cancelled = true;
                task = null; // what the task captured (a whole connection, often) is free at once
                onCancel();
            }
        }

        @Override
        public int compareTo(Deadline o) {
            long d = dueNanos - o.dueNanos;
            return d != 0 ? (d < 0 ? -1 : 1) : Long.compare(seq, o.seq);
        }
    }
}
