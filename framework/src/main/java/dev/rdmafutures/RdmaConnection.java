package dev.rdmafutures;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * An established, reliable connection: one queue pair and its completions, driven by the runtime's poller (NDK's
 * {@code NDK_QP} bound to a connector).
 */
public interface RdmaConnection extends AutoCloseable {
    /** The negotiated read limits and the peer's private data ({@code NdkGetConnectionData}). */
    ConnectionData connectionData();

    /** This side's address. */
    InetSocketAddress localAddress();

    /** The peer's address. */
    InetSocketAddress remoteAddress();

    /** Whether the connection is still up. */
    boolean isConnected();

    /**
     * Disconnects gracefully: outstanding operations on both sides are flushed with {@link Status#CANCELED}. The
     * future completes when the peer has acknowledged or the runtime's disconnect timeout passed (then the
     * transport is closed abortively). Idempotent: later calls return the same future.
     */
    CompletableFuture<Void> disconnect();

    /** A future of why the connection ended; it completes exactly once. */
    CompletableFuture<DisconnectReason> disconnected();

    /** Starts {@link #disconnect()} without waiting. */
    @Override
    void close();
}
