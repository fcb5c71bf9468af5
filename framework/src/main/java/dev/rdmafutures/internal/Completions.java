package dev.rdmafutures.internal;

import dev.rdmafutures.internal.poller.DutyCycleErrors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Where futures complete and user callbacks run: on the poller thread (NDK's RequestCompletion semantics) or, when
 * the runtime was built with one, on the completion executor. Callback errors are recorded, never swallowed.
 */
final class Completions {
    private final Executor executor;
    private final DutyCycleErrors errors;

    Completions(Executor executor, DutyCycleErrors errors) {
        this.executor = executor;
        this.errors = errors;
    }

    /** Completes {@code f} with {@code value}; runs {@code refused} with the value if {@code f} was already done. */
    <T> void deliver(CompletableFuture<T> f, T value, Consumer<T> refused) {
        execute(() -> {
            if (!f.complete(value) && refused != null) {
                refused.accept(value);
            }
        });
    }

    <T> void deliver(CompletableFuture<T> f, T value) {
        deliver(f, value, null);
    }

    void fail(CompletableFuture<?> f, Throwable error) {
        execute(() -> f.completeExceptionally(error));
    }

    /** Runs a user callback; what it throws is recorded. */
    void callback(String what, Runnable userCode) {
        execute(() -> {
            try {
                userCode.run();
            } catch (Throwable t) {
                record(what, t);
            }
        });
    }

    /** Records what a user callback threw. */
    void record(String what, Throwable error) {
        errors.record(what, error);
    }

    /** Runs {@code task} where completions run: at once on the calling (poller) thread, or on the executor. */
    void execute(Runnable task) {
        if (executor == null) {
            task.run();
            return;
        }
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            errors.record("completion executor rejected a completion; ran it on the poller", e);
            task.run();
        }
    }
}
