package dev.rdmafutures.spi;

import dev.rdmafutures.RdmaException;

/** Where a listening event loop reports incoming requests; called on the poller thread that owns the request. */
public interface ListenEvents {
    /** A peer's connect request arrived and waits for an answer. */
    void onRequest(IncomingRequest request);

    /**
     * A request reported by {@link #onRequest} can no longer be answered: the peer gave up, or nobody answered
     * within the handshake timeout. Answers given later fail with {@code reason}'s status.
     */
    void onRequestWithdrawn(IncomingRequest request, RdmaException reason);
}
