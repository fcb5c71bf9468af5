package dev.rdmafutures;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A bound, listening endpoint (NDK's {@code NDK_LISTENER}); from {@link RdmaRuntime#listen(InetSocketAddress)}.
 *
 * <p>Incoming requests are handed out either to a handler ({@link #onRequest(Consumer)}, NDK's connect-event
 * callback) or one per {@link #next()} future. Until one of these takes a request it waits in a queue as deep as
 * the listener's backlog; past that, new requests are rejected and the peer sees
 * {@link Status#CONNECTION_REFUSED}. A request nobody accepts or rejects within the runtime's accept timeout is
 * aborted.
 */
public interface RdmaListener extends AutoCloseable {
    /** The bound address, with the actual port when 0 was asked for. */
    InetSocketAddress localAddress();

    /** A future of the next request; fails with {@link Status#CANCELED} when the listener closes first. */
    CompletableFuture<ConnectionRequest> next();

    /**
     * Hands every request, queued ones first, to {@code handler}, on the poller thread or the runtime's completion
     * executor. A handler that throws rejects that request and the error is logged.
     *
     * @throws RdmaException {@link Status#INVALID_DEVICE_STATE} if a handler is already set
     */
    void onRequest(Consumer<ConnectionRequest> handler);

    /** Stops listening; queued requests are rejected, waiting {@link #next()} futures fail with CANCELED. Idempotent. */
    @Override
    void close();
}
