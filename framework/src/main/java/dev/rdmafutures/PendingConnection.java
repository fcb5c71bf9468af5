package dev.rdmafutures;

import java.util.concurrent.CompletableFuture;

/**
 * A connection the peer has accepted and this side has not yet completed (ND's state between {@code Connect} and
 * {@code CompleteConnect}). Exactly one of {@link #complete()} and {@link #reject()} may be called; if neither is
 * called within the connect timeout, the attempt is aborted and the peer's accept fails with
 * {@link Status#IO_TIMEOUT}.
 */
public interface PendingConnection {
    /** What the peer accepted with: its private data and the negotiated read limits. */
    ConnectionData connectionData();

    /** Completes establishment (ND's {@code CompleteConnect}); the peer's accept then completes too. */
    CompletableFuture<RdmaConnection> complete();

    /**
     * Abandons the connection after the peer accepted; the peer's accept fails with
     * {@link Status#CONNECTION_ABORTED}. The future completes when the transport is released.
     */
    CompletableFuture<Void> reject();
}
