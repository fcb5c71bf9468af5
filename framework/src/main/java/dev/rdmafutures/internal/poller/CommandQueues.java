package dev.rdmafutures.internal.poller;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The commands handed to one {@link Poller}, in the order each thread gave them: other threads' through a lock-free
 * queue, the owning thread's own (posts from completion callbacks) through a queue only it touches. Once closed it
 * refuses new commands, and {@link #drainAfterClose} runs every command a racing thread still got in, so none is
 * stranded.
 */
final class CommandQueues {
    private static final int ARRAY_QUEUE = 16 * 1024;
    /**
     * Other threads' commands: a many-to-one array queue, which hands a command over without allocating
     * (CommandQueueBenchmark: 0 B per command against the JDK linked queue's ~16 B node).
     */
    private final ManyToOneArrayQueue<Runnable> commands;
    /**
     * Commands that found the array queue full, in order; unbounded (bounding what a fast poster may queue is the
     * data path's back-pressure, not the hand-off's). While it holds anything, every new command goes here too, and
     * it is drained only when the array queue is empty, so each thread's commands run in the order given.
     */
    private final Queue<Runnable> overflow = new ConcurrentLinkedQueue<>();
    /** Commands the owning thread handed itself: no queue node, no CAS. */
    private final ArrayDeque<Runnable> own = new ArrayDeque<>();
    private final DutyCycleErrors errors;
    private volatile boolean accepting = true;
    /** Threads between their accepting check and their offer: a close waits them out before its last drain. */
    private final AtomicInteger submitting = new AtomicInteger();
    /** Runs one command from the array queue: made once, so a drain allocates nothing. */
    private final Consumer<Runnable> runCommand = command -> runGuarded("command", command);

    CommandQueues(DutyCycleErrors errors) {
        this(errors, ARRAY_QUEUE);
    }

    /** With an array queue of {@code capacity} (a power of two): small in tests, to reach the overflow. */
    CommandQueues(DutyCycleErrors errors, int capacity) {
        this.errors = errors;
        this.commands = new ManyToOneArrayQueue<>(capacity);
    }

    /** Queues a command from a thread that does not own the poller; false once closed. Thread-safe. */
    boolean offer(Runnable command) {
        submitting.incrementAndGet();
        try {
            if (!accepting) {
                return false;
            }
            if (!overflow.isEmpty() || !commands.offer(command)) {
                overflow.add(command);
            }
            return true;
        } finally {
            submitting.decrementAndGet();
        }
    }

    /** Queues a command from the owning thread; false once closed. */
    boolean offerOwn(Runnable command) {
        if (!accepting) {
            return false;
        }
        own.add(command);
        return true;
    }

    /** Runs up to {@code max} commands, other threads' first (they were handed over first); returns how many ran. */
    int run(int max) {
        int ran = commands.drain(runCommand, max);
        Runnable command;
        // Peek, then check the array queue, then take: an overflowed command was queued after every array command
        // of its thread, so once it is seen, an empty array queue means those ran. Checked the other way round, a
        // thread could fill the array queue and overflow between the check and the take, and its overflowed command
        // would run before the ones in the array queue (CommandQueuesTest).
        while (ran < max && (command = overflow.peek()) != null && commands.isEmpty()) {
            overflow.poll(); // the command peeked: only the owning thread takes from the overflow
            runGuarded("command", command);
            ran++;
        }
        while (ran < max && (command = own.poll()) != null) {
            runGuarded("command", command);
            ran++;
        }
        return ran;
    }

    boolean isEmpty() {
        return commands.isEmpty() && overflow.isEmpty() && own.isEmpty();
    }

    /** Refuses commands from now on. */
    void close() {
        accepting = false;
    }

    /** After {@link #close}: waits out the threads mid-offer, then runs what they and others queued. Owner only. */
    void drainAfterClose() {
        while (submitting.get() != 0) {
            Thread.onSpinWait();
        }
        Runnable command;
        while ((command = commands.poll()) != null || (command = overflow.poll()) != null
                || (command = own.poll()) != null) {
            runGuarded("command after close", command);
        }
    }

    private void runGuarded(String where, Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            errors.record(where, t);
        }
    }
}
