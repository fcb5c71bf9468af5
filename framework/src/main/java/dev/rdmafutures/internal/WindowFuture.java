package dev.rdmafutures.internal;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;

/**
 * The future of a window bind (the window's new {@link RemoteBuffer}) or invalidation (null): the callback of the
 * operation that carries the request.
 */
final class WindowFuture<T> extends RdmaFuture<T> implements CompletionCallback {
    private final MemoryWindowImpl window;
    private final int boundLength;

    private WindowFuture(Driver driver, MemoryWindowImpl window, int boundLength) {
        super(driver);
        this.window = window;
        this.boundLength = boundLength;
    }

    /** The future of binding {@code window} over {@code length} bytes. */
    static WindowFuture<RemoteBuffer> bind(Driver driver, MemoryWindowImpl window, int length) {
        return new WindowFuture<>(driver, window, length);
    }

    /** The future of invalidating {@code window}. */
    static WindowFuture<Void> invalidate(Driver driver, MemoryWindowImpl window) {
        return new WindowFuture<>(driver, window, -1);
    }

    /** {@code bytes} is, for a bind, the token the bind gave the window (see {@code CallbackOperation}). */
    @Override
    @SuppressWarnings("unchecked")
    public void completed(long context, int bytes) {
        complete(boundLength < 0 ? null : (T) window.boundTo(boundLength, bytes));
    }

    @Override
    public void failed(long context, RdmaException error) {
        completeExceptionally(error);
    }
}
