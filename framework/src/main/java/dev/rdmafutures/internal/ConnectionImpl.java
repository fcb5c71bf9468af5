package dev.rdmafutures.internal;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Batch;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlag;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.WorkRequest;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The API face of a provider connection. Exists from the start of establishment (the provider reports the
 * connection's end to it), becomes usable at {@link #established}.
 */
final class ConnectionImpl implements RdmaConnection, ConnectionEvents, OperationTarget {
    private static final OperationFlag[] NO_FLAGS = {};
    private final RuntimeOwner runtime;
    private final Completions completions;
    private final PollerProxy poller;
    private final Consumer<DisconnectReason> disconnectCallback;
    private final Runnable onEnd;
    private final QueueSlots slots;
    private final Posting posting;
    private final SharedReceiveQueueImpl sharedQueue;
    private final RdmaFuture<DisconnectReason> disconnected;
    private final RdmaFuture<Void> disconnectDone;
    private volatile ProviderConnection provider;
    private volatile ConnectionData data;
    private volatile boolean connected;
    private boolean disconnectRequested;

    ConnectionImpl(RuntimeOwner runtime, PollerProxy poller, QueueDepths depths, SharedReceiveQueueImpl sharedQueue,
                   Consumer<DisconnectReason> disconnectCallback, Runnable onEnd) {
        this.runtime = runtime;
        this.completions = runtime.completions();
        this.poller = poller;
        this.disconnectCallback = disconnectCallback;
        this.onEnd = onEnd;
        this.sharedQueue = sharedQueue;
        this.slots = new QueueSlots(depths, "QueueDepths, RdmaConnection.availableInitiatorSlots and "
                + "availableReceiveSlots");
        this.posting = new Posting(runtime, poller, this, this::checkAccepts);
        this.disconnected = runtime.newFuture();
        this.disconnectDone = runtime.newFuture();
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
            sharedQueue.attach();
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
    public CompletableFuture<Completion> read(MemoryRegion local, int localOffset, RemoteBuffer remote,
                                              long remoteOffset, int length, OperationFlag... flags) {
        return future(WorkRequest.Kind.READ, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags);
    }

    @Override
    public CompletableFuture<Completion> read(MemoryRegion local, int localOffset, RemoteBuffer remote,
                                              long remoteOffset, int length) {
        return read(local, localOffset, remote, remoteOffset, length, NO_FLAGS);
    }

    @Override
    public CompletableFuture<Completion> write(MemoryRegion local, int localOffset, RemoteBuffer remote,
                                               long remoteOffset, int length) {
        return write(local, localOffset, remote, remoteOffset, length, NO_FLAGS);
    }

    @Override
    public CompletableFuture<Completion> send(MemoryRegion local, int offset, int length) {
        return send(local, offset, length, NO_FLAGS);
    }

    @Override
    public CompletableFuture<Completion> write(MemoryRegion local, int localOffset, RemoteBuffer remote,
                                               long remoteOffset, int length, OperationFlag... flags) {
        return future(WorkRequest.Kind.WRITE, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags);
    }

    @Override
    public CompletableFuture<Completion> send(MemoryRegion local, int offset, int length, OperationFlag... flags) {
        return future(WorkRequest.Kind.SEND, local, offset, length, null, 0, flags);
    }

    @Override
    public CompletableFuture<Completion> sendAndInvalidate(MemoryRegion local, int offset, int length,
                                                           int remoteToken, OperationFlag... flags) {
        RdmaException unsupported = remoteInvalidateUnsupported();
        return unsupported != null ? RdmaFuture.failed(unsupported) : future(WorkRequest.Kind.SEND_INVALIDATE,
                local, offset, length, new RemoteBuffer(0, 0, remoteToken), 0, flags);
    }

    @Override
    public CompletableFuture<Completion> receive(MemoryRegion local, int offset, int length) {
        return future(WorkRequest.Kind.RECEIVE, local, offset, length, null, 0, NO_FLAGS);
    }

    @Override
    public CompletableFuture<Completion> read(ScatterGatherList local, RemoteBuffer remote, long remoteOffset,
                                              OperationFlag... flags) {
        return future(WorkRequest.Kind.READ, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public CompletableFuture<Completion> write(ScatterGatherList local, RemoteBuffer remote, long remoteOffset,
                                               OperationFlag... flags) {
        return future(WorkRequest.Kind.WRITE, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public CompletableFuture<Completion> send(ScatterGatherList local, OperationFlag... flags) {
        return future(WorkRequest.Kind.SEND, local, null, 0, flags);
    }

    @Override
    public CompletableFuture<Completion> sendAndInvalidate(ScatterGatherList local, int remoteToken,
                                                           OperationFlag... flags) {
        RdmaException unsupported = remoteInvalidateUnsupported();
        return unsupported != null ? RdmaFuture.failed(unsupported) : future(WorkRequest.Kind.SEND_INVALIDATE,
                local, new RemoteBuffer(0, 0, remoteToken), 0, flags);
    }

    @Override
    public CompletableFuture<Completion> receive(ScatterGatherList local) {
        return future(WorkRequest.Kind.RECEIVE, local, null, 0, NO_FLAGS);
    }

    @Override
    public Batch batch() {
        return new BatchImpl(runtime, poller, posting);
    }

    @Override
    public void read(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                     CompletionCallback callback, long context) {
        read(local, localOffset, remote, remoteOffset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void read(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                     CompletionCallback callback, long context, OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.READ, local, localOffset, length,
                Objects.requireNonNull(remote, "remote"), remoteOffset, flags, callback, context), "READ");
    }

    @Override
    public void write(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                      CompletionCallback callback, long context) {
        write(local, localOffset, remote, remoteOffset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void write(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                      CompletionCallback callback, long context, OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.WRITE, local, localOffset, length,
                Objects.requireNonNull(remote, "remote"), remoteOffset, flags, callback, context), "WRITE");
    }

    @Override
    public void send(MemoryRegion local, int offset, int length, CompletionCallback callback, long context) {
        send(local, offset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void send(MemoryRegion local, int offset, int length, CompletionCallback callback, long context,
                     OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.SEND, local, offset, length, null, 0, flags, callback,
                context), "SEND");
    }

    @Override
    public void receive(MemoryRegion local, int offset, int length, CompletionCallback callback, long context) {
        posting.post(posting.started(WorkRequest.Kind.RECEIVE, local, offset, length, null, 0, NO_FLAGS, callback,
                context), "RECEIVE");
    }

    @Override
    public void read(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, CompletionCallback callback,
                     long context) {
        read(local, remote, remoteOffset, callback, context, NO_FLAGS);
    }

    @Override
    public void read(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, CompletionCallback callback,
                     long context, OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.READ, local, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags, callback, context), "READ");
    }

    @Override
    public void write(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, CompletionCallback callback,
                      long context) {
        write(local, remote, remoteOffset, callback, context, NO_FLAGS);
    }

    @Override
    public void write(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, CompletionCallback callback,
                      long context, OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.WRITE, local, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags, callback, context), "WRITE");
    }

    @Override
    public void send(ScatterGatherList local, CompletionCallback callback, long context) {
        send(local, callback, context, NO_FLAGS);
    }

    @Override
    public void send(ScatterGatherList local, CompletionCallback callback, long context, OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.SEND, local, null, 0, flags, callback, context), "SEND");
    }

    @Override
    public void receive(ScatterGatherList local, CompletionCallback callback, long context) {
        posting.post(posting.started(WorkRequest.Kind.RECEIVE, local, null, 0, NO_FLAGS, callback, context),
                "RECEIVE");
    }

    private CompletableFuture<Completion> future(WorkRequest.Kind kind, MemoryRegion local, int offset, int length,
                                                 RemoteBuffer remote, long remoteOffset, OperationFlag[] flags) {
        OperationFuture future = new OperationFuture(runtime.driver());
        try {
            posting.post(posting.started(kind, local, offset, length, remote, remoteOffset, flags, future, 0),
                    kind.name());
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    private CompletableFuture<Completion> future(WorkRequest.Kind kind, ScatterGatherList local, RemoteBuffer remote,
                                                 long remoteOffset, OperationFlag[] flags) {
        OperationFuture future = new OperationFuture(runtime.driver());
        try {
            posting.post(posting.started(kind, local, remote, remoteOffset, flags, future, 0), kind.name());
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    private RdmaException remoteInvalidateUnsupported() {
        AdapterInfo adapter = runtime.adapterInfo();
        return adapter.isRemoteInvalidateSupported() ? null : new RdmaException(Status.NOT_SUPPORTED,
                adapter.deviceName() + " cannot invalidate a peer's region token remotely "
                        + "(AdapterInfo.isRemoteInvalidateSupported)");
    }

    /** The last check of every post, after its arguments'. */
    private void checkAccepts(WorkRequest.Kind kind) {
        if (!connected) {
            throw new RdmaException(Status.CONNECTION_INVALID, this + " is not connected");
        }
        if (kind == WorkRequest.Kind.RECEIVE && sharedQueue != null) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " takes its receives from a shared "
                    + "receive queue; post them there");
        }
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
        if (wasConnected && sharedQueue != null) {
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
