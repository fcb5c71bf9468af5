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
final class RdmaFuture<T> extends CompletableFuture<T> {
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
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseBlockingOnPoller();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseBlockingOnPoller();
        return super.join();
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
