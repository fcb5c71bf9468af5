package dev.rdmafutures.internal;

import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.RdmaException;
import java.util.OptionalInt;

/**
 * The future of one operation posted through the future API. It is the callback of the pooled
 * {@link CallbackOperation} that carries the request, so an operation posted from the poller thread allocates
 * this future and the {@link Completion} it completes with, and nothing else.
 */
final class OperationFuture extends RdmaFuture<Completion> implements CompletionCallback {
    OperationFuture(Driver driver) {
        super(driver);
    }

    @Override
    public void completed(long context, int bytes) {
        complete(Completion.of(bytes));
    }

    @Override
    public void completedWithInvalidate(long context, int bytes, int invalidatedToken) {
        complete(new Completion(bytes, OptionalInt.of(invalidatedToken)));
    }

    @Override
    public void failed(long context, RdmaException error) {
        completeExceptionally(error);
    }
}
