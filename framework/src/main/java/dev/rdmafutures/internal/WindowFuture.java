package dev.rdmafutures.internal;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;

/**
 * The future of a request on a window or fast-register slot: a bind (the window's new {@link RemoteBuffer}), a fast
 * registration (its {@link MemoryRegion}) or an invalidation (null). It is the callback of the operation that
 * carries the request.
 */
final class WindowFuture<T> extends RdmaFuture<T> implements CompletionCallback {
    /** What the request's success gives, from the token it reports (a bind's) or its bytes. */
    private interface Outcome<T> {
        T of(int reported);
    }

    private final Outcome<T> outcome;

    private WindowFuture(Driver driver, Outcome<T> outcome) {
        super(driver);
        this.outcome = outcome;
    }

    /** The future of binding {@code window} over {@code length} bytes. */
    static WindowFuture<RemoteBuffer> bind(Driver driver, MemoryWindowImpl window, int length) {
        return new WindowFuture<>(driver, token -> window.boundTo(length, token));
    }

    /** The future of registering {@code region} in its slot. */
    static WindowFuture<MemoryRegion> fastRegister(Driver driver, MemoryRegionImpl region) {
        return new WindowFuture<>(driver, bytes -> region);
    }

    /** The future of an invalidation. */
    static WindowFuture<Void> invalidate(Driver driver) {
        return new WindowFuture<>(driver, bytes -> null);
    }

    /** {@code bytes} is, for a bind, the token the bind gave the window (see {@code CallbackOperation}). */
    @Override
    public void completed(long context, int bytes) {
        complete(outcome.of(bytes));
    }

    @Override
    public void failed(long context, RdmaException error) {
        completeExceptionally(error);
    }
}
