package dev.rdmafutures;

import dev.rdmafutures.poller.PollerThread;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The futures RdmaFutures returns, and every stage derived from them: a {@link CompletableFuture} whose blocking
 * calls fail at once on a poller thread instead of deadlocking it (the poller is what would complete them).
 */
sealed class RdmaFuture<T> extends CompletableFuture<T> permits OperationFuture {
    static <T> RdmaFuture<T> failed(RdmaException error) {
        RdmaFuture<T> f = new RdmaFuture<>();
        f.completeExceptionally(error);
        return f;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new RdmaFuture<>();
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
        driveUntilDone(System.nanoTime() + unit.toNanos(timeout));
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseBlockingOnPoller();
        driveUntilDone(Long.MAX_VALUE);
        return super.join();
    }

    /** On a thread that drives runtimes itself ({@code pollerThreads(0)}), waiting means polling them. */
    private void driveUntilDone(long deadlineNanos) {
        Runnable drive = Invokers.current();
        if (drive == null) {
            return;
        }
        while (!isDone() && (deadlineNanos == Long.MAX_VALUE || System.nanoTime() - deadlineNanos < 0)) {
            drive.run();
        }
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
