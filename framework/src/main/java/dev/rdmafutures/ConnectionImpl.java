package dev.rdmafutures;

import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderConnection;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The API face of a provider connection. Exists from the start of establishment (the provider reports the
 * connection's end to it), becomes usable at {@link #established}.
 */
final class ConnectionImpl implements RdmaConnection, ConnectionEvents {
    private final Completions completions;
    private final PollerContext poller;
    private final Consumer<DisconnectReason> disconnectCallback;
    private final Runnable onEnd;
    private final RdmaFuture<DisconnectReason> disconnected = new RdmaFuture<>();
    private final RdmaFuture<Void> disconnectDone = new RdmaFuture<>();
    private volatile ProviderConnection provider;
    private volatile ConnectionData data;
    private volatile boolean connected;
    private boolean disconnectRequested;

    ConnectionImpl(Completions completions, PollerContext poller, Consumer<DisconnectReason> disconnectCallback,
                   Runnable onEnd) {
        this.completions = completions;
        this.poller = poller;
        this.disconnectCallback = disconnectCallback;
        this.onEnd = onEnd;
    }

    void established(ProviderConnection connection, ConnectionData connectionData) {
        this.provider = connection;
        this.data = connectionData;
        this.connected = true;
    }

    @Override
    public ConnectionData connectionData() {
        return data;
    }

    @Override
    public InetSocketAddress localAddress() {
        return provider.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return provider.remoteAddress();
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    @Override
    public CompletableFuture<Void> disconnect() {
        synchronized (this) {
            if (disconnectRequested) {
                return disconnectDone;
            }
            disconnectRequested = true;
        }
        if (!poller.execute(() -> provider.disconnect())) {
            // The poller is gone, and with it the transport: the runtime's close ended this connection.
            disconnectDone.complete(null);
        }
        return disconnectDone;
    }

    /** Disconnects a connection nobody will receive: its future was cancelled or its runtime closed. */
    void discard() {
        poller.execute(() -> provider.disconnect());
    }

    @Override
    public CompletableFuture<DisconnectReason> disconnected() {
        return disconnected;
    }

    @Override
    public void close() {
        disconnect();
    }

    @Override
    public void onDisconnected(DisconnectReason reason) {
        connected = false;
        if (onEnd != null) {
            onEnd.run();
        }
        if (reason.isPeerInitiated() && disconnectCallback != null) {
            completions.callback("disconnect callback", () -> disconnectCallback.accept(reason));
        }
        completions.deliver(disconnected, reason);
        completions.deliver(disconnectDone, null);
    }

    @Override
    public String toString() {
        ProviderConnection p = provider;
        return "RdmaConnection[" + (p == null ? "establishing" : p.localAddress() + " -> " + p.remoteAddress())
                + (connected ? ", connected" : "") + "]";
    }
}
