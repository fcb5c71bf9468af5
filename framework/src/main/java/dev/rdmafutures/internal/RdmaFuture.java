package dev.rdmafutures.internal;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.internal.poller.PollerThread;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The futures RdmaFutures returns, and every stage derived from them: a {@link CompletableFuture} whose blocking
 * calls fail at once on a poller thread instead of deadlocking it (the poller is what would complete them).
 */
public sealed class RdmaFuture<T> extends CompletableFuture<T> permits OperationFuture, SharedReceiveFuture, WindowFuture {
    /** What the owner thread of an application-driven runtime polls while it waits; null with poller threads. */
    private final Driver driver;

    RdmaFuture(Driver driver) {
        this.driver = driver;
    }

    /** A future already failed with {@code error}. */
    public static <T> RdmaFuture<T> failed(RdmaException error) {
        RdmaFuture<T> f = new RdmaFuture<>(null);
        f.completeExceptionally(error);
        return f;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new RdmaFuture<>(driver); // dependent stages wait the same way
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        refuseBlockingOnPoller();
        driveUntilDone(Long.MAX_VALUE);
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseBlockingOnPoller();
        long start = System.nanoTime();
        long bound = unit.toNanos(timeout);
        // Saturated: a bound too long to add to the clock reading is no bound at all.
        long deadline = bound > Long.MAX_VALUE - Math.max(0, start) ? Long.MAX_VALUE : start + bound;
        if (driveUntilDone(deadline)) {
            // The owner polled until done or the deadline: what is left of the bound, not all of it again, while
            // nobody polls (the wait lasts its bound, not twice it).
            long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
            return super.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        }
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseBlockingOnPoller();
        driveUntilDone(Long.MAX_VALUE);
        return super.join();
    }

    /**
     * On a thread that owns application-driven runtimes ({@code pollerThreads(0)}), waiting means polling them all:
     * this future's runtime, and any other whose progress this future may need (a server's accept waits for the
     * request of a client this thread drives). Returns whether this thread polled (until done or the deadline).
     */
    private boolean driveUntilDone(long deadlineNanos) {
        Driver d = driver;
        if (d != null && d.ownedByCurrentThread()) {
            d.adoptOnOwner();
        }
        if (!OwnedRuntimes.any()) {
            return false; // poller threads, or the owner thread, complete it
        }
        while (!isDone() && (deadlineNanos == Long.MAX_VALUE || System.nanoTime() - deadlineNanos < 0)) {
            if (OwnedRuntimes.driveAll() == 0) {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    private void refuseBlockingOnPoller() {
        if (!isDone() && PollerThread.isCurrent()) {
            throw new IllegalStateException("blocking on an unfinished RdmaFutures future from poller thread "
                    + Thread.currentThread().getName() + " would deadlock it: this thread is the one that "
                    + "completes it. Chain a non-blocking stage (thenAccept, thenCompose), move the work with "
                    + "thenXxxAsync(executor), or build the runtime with completionExecutor(...)");
        }
    }
}
