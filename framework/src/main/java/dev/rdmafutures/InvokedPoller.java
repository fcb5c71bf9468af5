package dev.rdmafutures;

import dev.rdmafutures.internal.RuntimeCore;
import dev.rdmafutures.internal.poller.Poller;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One poller of an application-driven runtime ({@code pollerThreads(0)}), driven by one thread: the thread that built
 * the runtime when it has one poller; of several ({@link RdmaRuntime.Builder#invokedPollers(int)}), the thread that
 * {@linkplain #claim() claims} it. Its owner runs its duty cycles and waits for its work; any thread may wake it.
 * A connect started on a thread that owns a poller lives on that poller, so its callbacks run on that thread; so do a
 * listener and a shared receive queue it creates, though a listener deals the connections it accepts to all pollers
 * in turn. A poller nobody claimed yet runs nothing handed to it, deadlines included.
 *
 * <p>A handle from {@link RdmaRuntime#invokedPoller(int)}: handles of the same index drive the same poller.
 */
public final class InvokedPoller {
    private final RuntimeCore core;
    private final int index;
    /** Driven directly: an event loop polls it every turn, and the index was validated when the handle was made. */
    private final Poller poller;

    InvokedPoller(RuntimeCore core, int index) {
        this.core = core;
        this.index = index;
        this.poller = core.invokedPoller(index);
    }

    /**
     * Makes the calling thread this poller's owner, if no thread is; a no-op for its owner. Commands other threads
     * handed it meanwhile run in the owner's first {@link #poll()}.
     *
     * @throws IllegalStateException when another thread owns it (the message names that thread)
     */
    public void claim() {
        core.claim(index);
    }

    /**
     * Runs one duty cycle on the owner thread; see {@link RdmaRuntime#poll()}.
     *
     * @return the work done, 0 when idle
     * @throws IllegalStateException when the caller is not the owner
     */
    public int poll() {
        return poller.invoke();
    }

    /**
     * Blocks the owner until there is something to {@link #poll()}, {@link #wakeUp()} is called, or {@code timeout}
     * passes; see {@link RdmaRuntime#awaitWork(long, TimeUnit)}.
     *
     * @throws IllegalStateException when the caller is not the owner
     */
    public void awaitWork(long timeout, TimeUnit unit) {
        poller.awaitWork(unit.toNanos(timeout));
    }

    /**
     * For an owner that waits itself (an event loop with tasks of its own to watch): the runtime's
     * {@linkplain RdmaRuntime.Builder#idleStrategy idle strategy} after a {@link #poll()} that did {@code work}, short
     * of blocking. It spins or yields and returns true, and the owner polls again (after a look at its own queue); or
     * it returns false where the strategy blocks, and the owner calls {@link #awaitWork}. {@link IdleStrategy#BLOCKING}
     * always returns false (the wait returns at once while there is work); {@link IdleStrategy#BACKOFF} returns false
     * after a run of idle polls; the others never.
     *
     * @throws IllegalStateException when the caller is not the owner
     */
    public boolean idleWithoutBlocking(int work) {
        return poller.idleWithoutBlocking(work);
    }

    /** Makes the owner's blocked {@link #awaitWork} return at once, or its next one. Thread-safe. */
    public void wakeUp() {
        poller.wakeup();
    }

    /**
     * Stops this poller on its owner, for a thread that stops driving it while others go on with theirs: its
     * connections end and what is pending on it fails, on this thread, and nothing more is handed to it (a listener
     * deals its accepted connections to the other pollers). Idempotent; the runtime's close does it for the rest.
     *
     * @throws IllegalStateException when the caller is not the owner
     */
    public void close() {
        core.closePoller(index);
    }

    /** The owner thread; empty until a thread claims the poller. */
    public Optional<Thread> owner() {
        return Optional.ofNullable(poller.owner());
    }

    /** Which of the runtime's invoked pollers this is. */
    public int index() {
        return index;
    }

    @Override
    public String toString() {
        Thread owner = poller.owner();
        return "InvokedPoller[" + index + ", " + (owner == null ? "unclaimed" : "driven by " + owner.getName()) + "]";
    }
}
