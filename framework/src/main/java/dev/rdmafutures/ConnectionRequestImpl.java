package dev.rdmafutures;

import dev.rdmafutures.spi.EstablishEvents;
import dev.rdmafutures.spi.IncomingRequest;
import dev.rdmafutures.spi.ProviderConnection;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** An incoming request handed to the user; its answer is carried out on the poller that owns the request. */
final class ConnectionRequestImpl implements ConnectionRequest {
    private final RdmaRuntime runtime;
    private final IncomingRequest request;
    private final AtomicBoolean answered = new AtomicBoolean();
    private ReadLimits readLimits = ReadLimits.DEFAULT;
    private byte[] privateData = new byte[0];
    private Consumer<DisconnectReason> onDisconnect;

    ConnectionRequestImpl(RdmaRuntime runtime, IncomingRequest request) {
        this.runtime = runtime;
        this.request = request;
    }

    IncomingRequest incoming() {
        return request;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return request.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return request.localAddress();
    }

    @Override
    public byte[] privateData() {
        return request.privateData().clone();
    }

    @Override
    public ReadLimits requestedReadLimits() {
        return request.requestedReadLimits();
    }

    @Override
    public ConnectionRequest withReadLimits(int inbound, int outbound) {
        this.readLimits = ReadLimits.requested(inbound, outbound);
        return this;
    }

    @Override
    public ConnectionRequest withPrivateData(byte[] data) {
        this.privateData = Validation.privateData(data);
        return this;
    }

    @Override
    public ConnectionRequest onDisconnect(Consumer<DisconnectReason> callback) {
        this.onDisconnect = Objects.requireNonNull(callback, "callback");
        return this;
    }

    @Override
    public CompletableFuture<RdmaConnection> accept() {
        int max = runtime.adapterInfo().maxAcceptPrivateData();
        if (privateData.length > max) {
            return RdmaFuture.failed(Validation.overflow("accept", privateData.length, max));
        }
        if (!answered.compareAndSet(false, true)) {
            return RdmaFuture.failed(alreadyAnswered());
        }
        RdmaFuture<RdmaConnection> future = new RdmaFuture<>();
        ConnectionImpl connection = new ConnectionImpl(runtime, request.poller(), onDisconnect, null);
        byte[] pd = privateData;
        ReadLimits limits = readLimits;
        boolean queued = request.poller().execute(() -> request.accept(limits, pd, connection, new EstablishEvents() {
            @Override
            public void onEstablished(ProviderConnection providerConnection, ConnectionData data) {
                connection.established(providerConnection, data);
                runtime.completions().deliver(future, connection, unwanted -> connection.discard());
            }

            @Override
            public void onFailed(RdmaException error) {
                runtime.completions().fail(future, error);
            }
        }));
        if (!queued) {
            future.completeExceptionally(Validation.closed("accept"));
        }
        return future;
    }

    @Override
    public CompletableFuture<Void> reject(byte[] data) {
        byte[] pd = Validation.privateData(data);
        int max = runtime.adapterInfo().maxRejectPrivateData();
        if (pd.length > max) {
            return RdmaFuture.failed(Validation.overflow("reject", pd.length, max));
        }
        if (!answered.compareAndSet(false, true)) {
            return RdmaFuture.failed(alreadyAnswered());
        }
        RdmaFuture<Void> future = new RdmaFuture<>();
        boolean queued = request.poller().execute(() -> request.reject(pd, error -> {
            if (error == null) {
                runtime.completions().deliver(future, null);
            } else {
                runtime.completions().fail(future, error);
            }
        }));
        if (!queued) {
            future.completeExceptionally(Validation.closed("reject"));
        }
        return future;
    }

    /** Rejects without private data on behalf of the framework (backlog full, listener closed, handler failed). */
    void refuse() {
        if (answered.compareAndSet(false, true)) {
            request.poller().execute(() -> request.reject(new byte[0], error -> { }));
        }
    }

    private RdmaException alreadyAnswered() {
        return new RdmaException(Status.INVALID_DEVICE_STATE,
                "the request from " + remoteAddress() + " was already accepted or rejected");
    }

    @Override
    public String toString() {
        return "ConnectionRequest[from " + remoteAddress() + ", " + request.privateData().length
                + " bytes private data, " + requestedReadLimits() + "]";
    }
}
