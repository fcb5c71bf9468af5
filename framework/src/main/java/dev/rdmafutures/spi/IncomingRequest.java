package dev.rdmafutures.spi;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.ReadLimits;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/** A peer's connect request. Methods other than the accessors run on {@link #poller()}'s thread, once. */
public interface IncomingRequest {
    /** The poller that owns this request: answers must be executed on it. Thread-safe. */
    PollerContext poller();

    /** The peer's address. Thread-safe. */
    InetSocketAddress remoteAddress();

    /** Our address. Thread-safe. */
    InetSocketAddress localAddress();

    /** The peer's private data (not copied; the caller must not modify it). Thread-safe. */
    byte[] privateData();

    /** The limits the peer asked for. Thread-safe. */
    ReadLimits requestedReadLimits();

    /**
     * Accepts with our requested limits and private data, creating the QP with {@code queueDepths} (already capped
     * to the adapter; the core never has more requests outstanding than these); outcome through {@code establish},
     * then the connection's lifecycle through {@code connectionEvents}. The QP is created in {@code domain}; with a
     * {@code sharedReceiveQueue} (of that domain; else null), it takes its receives from it.
     */
    void accept(ReadLimits readLimits, QueueDepths queueDepths, ProviderDomain domain,
                ProviderSharedReceiveQueue sharedReceiveQueue,
                byte[] privateData, ConnectionEvents connectionEvents, EstablishEvents establish);

    /** Rejects with private data; {@code done} gets null once sent, or the error. */
    void reject(byte[] privateData, Consumer<RdmaException> done);
}
