package dev.rdmafutures;

import java.util.concurrent.CompletableFuture;

/** The two-phase form of a {@link ConnectBuilder}, from {@link ConnectBuilder#deferCompletion()}. */
public interface DeferredConnectBuilder {
    /**
     * Sends the request; the future completes when the peer has accepted (ND's Connect completing), with the
     * peer's private data and the negotiated limits visible in {@link PendingConnection#connectionData()}.
     * Failures are those of {@link ConnectBuilder#start()}.
     */
    CompletableFuture<PendingConnection> start();
}
