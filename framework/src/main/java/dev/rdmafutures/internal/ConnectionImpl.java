package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.ConnectionMetrics;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.WorkRequest;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The API face of a provider connection. Exists from the start of establishment (the provider reports the
 * connection's end to it), becomes usable at {@link #established}.
 */
final class ConnectionImpl extends ConnectionDataPath implements ConnectionEvents, OperationTarget {
    private final RuntimeOwner runtime;
    private final Completions completions;
    private final PollerProxy poller;
    private final Consumer<DisconnectReason> disconnectCallback;
    private final Runnable onEnd;
    private final QueueSlots slots;
    private final SharedReceiveQueueImpl sharedQueue;
    private final RdmaFuture<DisconnectReason> disconnected;
    private final RdmaFuture<Void> disconnectDone;
    private final OperationCounters counters;
    private volatile ProviderConnection provider;
    private volatile ConnectionData data;
    private volatile boolean connected;
    /** Written under the lock; volatile for {@link #isEnding()} on the poller. */
    private volatile boolean disconnectRequested;
    /** Established on the shared queue, and not yet released by a disconnect request or the end. Guarded by this. */
    private boolean usesSharedQueue;

    ConnectionImpl(DomainImpl domain, PollerProxy poller, QueueDepths depths, SharedReceiveQueueImpl sharedQueue,
                   Consumer<DisconnectReason> disconnectCallback, Runnable onEnd) {
        super(domain, poller);
        RuntimeOwner runtime = domain.owner();
        this.runtime = runtime;
        this.completions = runtime.completions();
        this.poller = poller;
        this.disconnectCallback = disconnectCallback;
        this.onEnd = onEnd;
        this.sharedQueue = sharedQueue;
        this.slots = new QueueSlots(depths, "QueueDepths, RdmaConnection.availableInitiatorSlots and "
                + "availableReceiveSlots");
        this.disconnected = runtime.newFuture();
        this.disconnectDone = runtime.newFuture();
        this.counters = OperationCounters.ownedBy(runtime.recorder(), poller);
    }

    @Override
    public OperationCounters counters() {
        return counters;
    }

    @Override
    public ConnectionMetrics metrics() {
        QueueDepths depths = slots.depths();
        return new ConnectionMetrics(counters.snapshot(), depths.initiator() - slots.availableInitiator(),
                depths.receive() - slots.availableReceive());
    }

    @Override
    public Completions completions() {
        return completions;
    }

    @Override
    public QueueSlots slots() {
        return slots;
    }

    void established(ProviderConnection connection, ConnectionData connectionData) {
        this.provider = connection;
        this.data = connectionData;
        this.connected = true;
        if (sharedQueue != null) {
            synchronized (this) {
                usesSharedQueue = true;
                sharedQueue.attach();
            }
        }
    }

    /** This connection will take no more receives from its shared queue: it may be closed once we have ended. */
    private void releaseSharedQueue() {
        boolean release;
        synchronized (this) {
            release = usesSharedQueue;
            usesSharedQueue = false;
        }
        if (release) {
            sharedQueue.release();
        }
    }

    @Override
    public ConnectionData connectionData() {
        return data;
    }

    @Override
    public QueueDepths queueDepths() {
        return slots.depths();
    }

    @Override
    public int availableInitiatorSlots() {
        return slots.availableInitiator();
    }

    @Override
    public int availableReceiveSlots() {
        return slots.availableReceive();
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
    Status checkAccepts(WorkRequest.Kind kind, boolean explain) {
        if (!connected) {
            return Posting.refuse(Status.CONNECTION_INVALID, explain ? this + " is not connected" : null);
        }
        if (kind == WorkRequest.Kind.RECEIVE && sharedQueue != null) {
            return Posting.refuse(Status.INVALID_DEVICE_STATE, explain ? this + " takes its receives from a shared "
                    + "receive queue; post them there" : null);
        }
        return Status.SUCCESS;
    }

    @Override
    public boolean isEnding() {
        return !connected || disconnectRequested;
    }

    @Override
    public void submit(WorkRequest request) {
        if (!connected) {
            // Accepted while the connection was up, but its end reached this poller first: flushed like every
            // request outstanding at the end (NDK), not refused as if it had been posted to a dead connection.
            request.completion().failed(new RdmaException(Status.CANCELED,
                    "the connection ended before the request was posted"));
            return;
        }
        provider.post(request);
    }

    @Override
    public CompletableFuture<Void> disconnect() {
        synchronized (this) {
            if (disconnectRequested) {
                return disconnectDone;
            }
            disconnectRequested = true;
        }
        releaseSharedQueue();
        if (!poller.endSubject("disconnect", this, () -> provider.disconnect())) {
            disconnectDone.complete(null); // the runtime's close ended this connection with the transport
        }
        return disconnectDone;
    }

    /** Disconnects a connection nobody will receive: its future was cancelled or its runtime closed. */
    void discard() {
        poller.endSubject("discard", this, () -> provider.disconnect());
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
        boolean wasConnected = connected;
        connected = false;
        if (wasConnected) {
            runtime.recorder().ended(provider.remoteAddress(), reason);
        }
        if (wasConnected && sharedQueue != null) {
            releaseSharedQueue();
            sharedQueue.detach();
        }
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
