package dev.rdmafutures.netty;

import dev.rdmafutures.ConnectBuilder;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.ReadLimits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A client channel's connect, from the connection its byte stream needs to the stream over it: queue depths from the
 * stream's settings within the adapter's limits, receives posted before the connect where the adapter needs them
 * ({@link ReceiveRing#postsBeforeConnection}), the stream hello ahead of the application's private data, read limits,
 * the connect timeout and the local address; then, once the connection is up, the peer's hello checked and the stream
 * opened. Whatever the outcome, each way out releases what the attempt registered. On the channel's event loop.
 */
final class ClientConnect {
    private final RdmaIoHandler handler;
    private final StreamSettings settings;
    private final InetSocketAddress remote;
    /** The receives posted before connecting; null: they are posted on the connection once it is up. */
    private final ReceiveRing preposted;
    private final CompletableFuture<RdmaConnection> connection;

    private ClientConnect(RdmaIoHandler handler, StreamSettings settings, InetSocketAddress remote,
                          ReceiveRing preposted, CompletableFuture<RdmaConnection> connection) {
        this.handler = handler;
        this.settings = settings;
        this.remote = remote;
        this.preposted = preposted;
        this.connection = connection;
    }

    /**
     * Starts connecting to {@code remote} with {@code options}, from the runtime of {@code handler}'s loop.
     *
     * @param connectTimeoutMillis the channel's {@code CONNECT_TIMEOUT_MILLIS}; 0: the runtime's connect deadline
     * @param from                 the local address to connect from; null: the runtime picks it
     * @throws RuntimeException what the runtime throws when the connect cannot start (an
     *                          {@link dev.rdmafutures.RdmaException}, an {@link IllegalArgumentException}), as
     *                          {@link OutOfMemoryError} does when memory runs out; nothing is left registered
     */
    static ClientConnect start(RdmaIoHandler handler, RdmaOptions options, int connectTimeoutMillis,
                               InetSocketAddress remote, InetSocketAddress from) {
        RdmaRuntime runtime = handler.runtime();
        StreamSettings settings = options.stream().cappedTo(runtime.adapterInfo());
        ReceiveRing receives = ReceiveRing.postsBeforeConnection(runtime.adapterInfo(), options, settings)
                ? ReceiveRing.beforeConnection(runtime, settings) : null;
        try {
            ConnectBuilder builder = runtime.connector().connect(remote)
                    .withQueueDepths(settings.initiatorDepth(runtime.adapterInfo()), settings.receiveDepth())
                    .withPrivateData(StreamHello.encode(settings, handler.probeTarget(), options.privateData()));
            ReadLimits limits = options.readLimits();
            if (limits != null) {
                builder.withReadLimits(limits.inbound(), limits.outbound());
            }
            if (receives != null) {
                builder.withSharedReceiveQueue(receives.queue());
            }
            if (connectTimeoutMillis > 0) {
                builder.withTimeout(Duration.ofMillis(connectTimeoutMillis));
            }
            if (from != null) {
                builder.from(from);
            }
            return new ClientConnect(handler, settings, remote, receives, builder.start());
        } catch (RuntimeException | OutOfMemoryError e) {
            if (receives != null) {
                receives.release();
            }
            throw e;
        }
    }

    /** Completes with the connection, or fails as the runtime's connect failed; on the loop's thread. */
    CompletableFuture<RdmaConnection> connection() {
        return connection;
    }

    /** The connect failed: releases the receives posted for it. */
    void failed() {
        if (preposted != null) {
            preposted.release();
        }
    }

    /** The channel no longer wants {@code c} (it closed meanwhile): closes it and releases its receives. */
    void abandon(RdmaConnection c) {
        ReceiveRing.closeUnused(c, preposted);
    }

    /**
     * Opens the byte stream over {@code c}, which reports to {@code events}; returns it with the peer's hello.
     *
     * @throws IOException      when the server sent no stream hello: it is no RdmaFutures Netty server
     * @throws RuntimeException when the stream's buffers cannot be registered or its receives posted
     *                          ({@link dev.rdmafutures.RdmaException}), as {@link OutOfMemoryError} does when their
     *                          memory cannot be had; in each case {@code c} is closed and its receives released
     */
    Opened open(RdmaConnection c, ByteStream.Events events) throws IOException {
        StreamHello peer = StreamHello.decode(c.connectionData().peerPrivateData());
        if (peer == null) {
            abandon(c);
            throw new IOException("the server at " + remote + " is not an RdmaFutures Netty server"
                    + " (its accept carried no stream hello)");
        }
        ReceiveRing receives = preposted;
        try {
            if (receives == null) {
                receives = ReceiveRing.afterConnection(handler.runtime(), settings);
            }
            ByteStream stream = ByteStream.open(handler.runtime(), c, settings, peer, receives, handler.probeSink(),
                    handler.allocator(), handler.executor(), events);
            return new Opened(stream, peer);
        } catch (RuntimeException | OutOfMemoryError e) {
            ReceiveRing.closeUnused(c, receives);
            throw e;
        }
    }

    /** A stream opened over the connection, and the hello its peer sent. */
    record Opened(ByteStream stream, StreamHello peer) {
    }
}
