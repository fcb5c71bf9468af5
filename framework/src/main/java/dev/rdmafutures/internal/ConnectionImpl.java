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
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.WorkRequest;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The API face of a provider connection. Exists from the start of establishment (the provider reports the
 * connection's end to it), becomes usable at {@link #established}.
 */
final class ConnectionImpl implements RdmaConnection, ConnectionEvents {
    private static final OperationFlag[] NO_FLAGS = {};
    private final RuntimeOwner runtime;
    private final Completions completions;
    private final PollerProxy poller;
    private final Consumer<DisconnectReason> disconnectCallback;
    private final Runnable onEnd;
    private final CallbackOperation.Pool callbackOperations;
    private final QueueSlots slots;
    private final RdmaFuture<DisconnectReason> disconnected;
    private final RdmaFuture<Void> disconnectDone;
    private volatile ProviderConnection provider;
    private volatile ConnectionData data;
    private volatile boolean connected;
    private boolean disconnectRequested;

    ConnectionImpl(RuntimeOwner runtime, PollerProxy poller, QueueDepths depths,
                   Consumer<DisconnectReason> disconnectCallback, Runnable onEnd) {
        this.runtime = runtime;
        this.completions = runtime.completions();
        this.poller = poller;
        this.disconnectCallback = disconnectCallback;
        this.onEnd = onEnd;
        this.callbackOperations = new CallbackOperation.Pool(this, poller);
        this.slots = new QueueSlots(depths);
        this.disconnected = runtime.newFuture();
        this.disconnectDone = runtime.newFuture();
    }

    ProviderConnection provider() {
        return provider;
    }

    Completions completions() {
        return completions;
    }

    QueueSlots slots() {
        return slots;
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
        return post(WorkRequest.Kind.READ, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
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
        return post(WorkRequest.Kind.WRITE, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags);
    }

    @Override
    public CompletableFuture<Completion> send(MemoryRegion local, int offset, int length, OperationFlag... flags) {
        return post(WorkRequest.Kind.SEND, local, offset, length, null, 0, flags);
    }

    @Override
    public CompletableFuture<Completion> sendAndInvalidate(MemoryRegion local, int offset, int length,
                                                           int remoteToken, OperationFlag... flags) {
        if (!runtime.adapterInfo().isRemoteInvalidateSupported()) {
            return RdmaFuture.failed(new RdmaException(Status.NOT_SUPPORTED, runtime.adapterInfo().deviceName()
                    + " cannot invalidate a peer's region token remotely (AdapterInfo.isRemoteInvalidateSupported)"));
        }
        return post(WorkRequest.Kind.SEND_INVALIDATE, local, offset, length,
                new RemoteBuffer(0, 0, remoteToken), 0, flags);
    }

    @Override
    public CompletableFuture<Completion> receive(MemoryRegion local, int offset, int length) {
        return post(WorkRequest.Kind.RECEIVE, local, offset, length, null, 0, NO_FLAGS);
    }

    @Override
    public Batch batch() {
        return new BatchImpl();
    }

    @Override
    public void read(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                     CompletionCallback callback, long context) {
        read(local, localOffset, remote, remoteOffset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void read(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                     CompletionCallback callback, long context, OperationFlag... flags) {
        post(WorkRequest.Kind.READ, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags, callback, context);
    }

    @Override
    public void write(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                      CompletionCallback callback, long context) {
        write(local, localOffset, remote, remoteOffset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void write(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                      CompletionCallback callback, long context, OperationFlag... flags) {
        post(WorkRequest.Kind.WRITE, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags, callback, context);
    }

    @Override
    public void send(MemoryRegion local, int offset, int length, CompletionCallback callback, long context) {
        send(local, offset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void send(MemoryRegion local, int offset, int length, CompletionCallback callback, long context,
                     OperationFlag... flags) {
        post(WorkRequest.Kind.SEND, local, offset, length, null, 0, flags, callback, context);
    }

    @Override
    public void receive(MemoryRegion local, int offset, int length, CompletionCallback callback, long context) {
        post(WorkRequest.Kind.RECEIVE, local, offset, length, null, 0, NO_FLAGS, callback, context);
    }

    private CompletableFuture<Completion> post(WorkRequest.Kind kind, MemoryRegion local, int offset, int length,
                                               RemoteBuffer remote, long remoteOffset, OperationFlag[] flags) {
        OperationFuture future = new OperationFuture(runtime.driver());
        try {
            post(kind, local, offset, length, remote, remoteOffset, flags, future, 0);
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    private void post(WorkRequest.Kind kind, MemoryRegion local, int offset, int length, RemoteBuffer remote,
                      long remoteOffset, OperationFlag[] flags, CompletionCallback callback, long context) {
        CallbackOperation op = started(kind, local, offset, length, remote, remoteOffset, flags, callback, context);
        if (!poller.post(op)) {
            op.abandon();
            throw PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, kind.name());
        }
    }

    /**
     * A validated operation whose outcome goes to {@code callback}, holding its local region and its queue slot:
     * pooled when the caller is the poller thread. Throws, holding nothing, when the operation is invalid or its
     * queue is full.
     */
    private CallbackOperation started(WorkRequest.Kind kind, MemoryRegion local, int offset, int length,
                                      RemoteBuffer remote, long remoteOffset, OperationFlag[] flags,
                                      CompletionCallback callback, long context) {
        Objects.requireNonNull(callback, "callback");
        CallbackOperation op = callbackOperations.acquire();
        MemoryRegionImpl region;
        try {
            region = prepare(op, kind, local, offset, length, remote, remoteOffset, flags);
            slots.take(kind);
        } catch (RdmaException e) {
            callbackOperations.recycle(op);
            throw e;
        }
        op.start(region, callback, context);
        return op;
    }

    /** Validates an operation and fills {@code request} in; returns the local region, not yet acquired. */
    private MemoryRegionImpl prepare(CallbackOperation request, WorkRequest.Kind kind, MemoryRegion local,
                                     int offset, int length, RemoteBuffer remote, long remoteOffset,
                                     OperationFlag[] flags) {
        if (runtime.isClosed()) {
            // Before the arguments: the runtime's close deregistered the regions, which is not what went wrong.
            throw PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, kind.name());
        }
        boolean placesData = kind == WorkRequest.Kind.READ || kind == WorkRequest.Kind.RECEIVE;
        MemoryRegionImpl region = DataPath.local(runtime, local, offset, length, placesData);
        int flagBits = DataPath.flagBits(flags);
        long remoteAddress = 0;
        int remoteToken = 0;
        if (remote != null) {
            if (kind != WorkRequest.Kind.SEND_INVALIDATE
                    && (remoteOffset < 0 || remoteOffset + length > remote.length())) {
                throw new RdmaException(Status.REMOTE_RESOURCES, "[" + remoteOffset + ", +" + length
                        + ") reaches beyond the remote buffer of " + remote.length() + " bytes");
            }
            remoteAddress = remote.address() + remoteOffset;
            remoteToken = remote.token();
        }
        if (!connected) {
            throw new RdmaException(Status.CONNECTION_INVALID, this + " is not connected");
        }
        request.set(kind, region.provider(), offset, length, remoteAddress, remoteToken, flagBits);
        return region;
    }

    /** Operations collected and posted in one poller command, all but the last deferred. */
    private final class BatchImpl implements Batch {
        private final List<CompletableFuture<Completion>> futures = new ArrayList<>();
        private final List<CallbackOperation> operations = new ArrayList<>(); // the valid ones, in order
        private boolean posted;

        private Batch add(WorkRequest.Kind kind, MemoryRegion local, int offset, int length, RemoteBuffer remote,
                          long remoteOffset, OperationFlag[] flags) {
            if (posted) {
                throw new RdmaException(Status.INVALID_DEVICE_STATE, "this batch was already posted");
            }
            OperationFuture future = new OperationFuture(runtime.driver());
            try {
                operations.add(started(kind, local, offset, length, remote, remoteOffset, flags, future, 0));
            } catch (RdmaException e) {
                future.completeExceptionally(e);
            }
            futures.add(future);
            return this;
        }

        @Override
        public Batch read(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                          OperationFlag... flags) {
            return add(WorkRequest.Kind.READ, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                    remoteOffset, flags);
        }

        @Override
        public Batch write(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                           OperationFlag... flags) {
            return add(WorkRequest.Kind.WRITE, local, localOffset, length, Objects.requireNonNull(remote, "remote"),
                    remoteOffset, flags);
        }

        @Override
        public Batch send(MemoryRegion local, int offset, int length, OperationFlag... flags) {
            return add(WorkRequest.Kind.SEND, local, offset, length, null, 0, flags);
        }

        @Override
        public List<CompletableFuture<Completion>> post() {
            posted = true;
            for (int i = 0; i < operations.size() - 1; i++) {
                operations.get(i).addFlags(WorkRequest.DEFER);
            }
            if (!operations.isEmpty() && !poller.post(() -> operations.forEach(CallbackOperation::run))) {
                RdmaException closed = PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, "batch");
                operations.forEach(op -> op.failed(closed));
            }
            return futures;
        }
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
