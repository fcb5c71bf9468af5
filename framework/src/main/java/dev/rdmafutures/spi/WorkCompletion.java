package dev.rdmafutures.spi;

import dev.rdmafutures.RdmaException;

/** Where a provider reports the outcome of a {@link WorkRequest}: exactly one call, on the poller thread. */
public interface WorkCompletion {
    /** The request succeeded after moving {@code bytes}. */
    void completed(int bytes);

    /** A receive completed by a Send with Invalidate, which invalidated the local region with {@code token}. */
    void completedWithInvalidate(int bytes, int token);

    /**
     * For a receive of a {@link ProviderSharedReceiveQueue}: the connection whose peer's Send took it out of the
     * queue, reported once, as it is taken (at the latest when its completion is polled), before its outcome,
     * successful or not. The core counts the queue's posted receives by it: a receive that fails without this
     * report (the queue closed, the device refused it) left the queue then.
     */
    void arrivedOn(ConnectionEvents connection);

    /**
     * For a BIND_WINDOW request: the window's token from this bind, reported when the bind takes effect (a later bind
     * of the same window may take effect before this request's completion is reported), before {@link #completed}.
     */
    void windowBound(int token);

    /** The request failed; CANCELED when flushed by a disconnect. */
    void failed(RdmaException error);
}
