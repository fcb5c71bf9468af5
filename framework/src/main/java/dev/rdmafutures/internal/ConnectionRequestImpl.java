package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.ProtectionDomain;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.Poller;
import dev.rdmafutures.internal.poller.PollerProxy;
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
    private final RuntimeOwner runtime;
    private final IncomingRequest request;
    /** The poller that owns the request: the one the provider reported it on. */
    private final PollerProxy poller;
    private final AtomicBoolean answered = new AtomicBoolean();
    private ReadLimits readLimits = ReadLimits.DEFAULT;
    private QueueDepths queueDepths = QueueDepths.DEFAULT;
    private SharedReceiveQueueImpl sharedQueue;
    private DomainImpl domain;
    private byte[] privateData = new byte[0];
    private Consumer<DisconnectReason> onDisconnect;

    ConnectionRequestImpl(RuntimeOwner runtime, IncomingRequest request) {
        this.runtime = runtime;
        this.domain = runtime.defaultDomain();
        this.request = request;
        this.poller = ((Poller) request.poller()).proxy(); // providers report on the poller context we gave them
    }

    PollerProxy poller() {
        return poller;
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
    public ConnectionRequest inDomain(ProtectionDomain domain) {
        this.domain = DomainImpl.check(runtime, domain);
        return this;
    }

    @Override
    public ConnectionRequest withQueueDepths(int initiator, int receive) {
        this.queueDepths = new QueueDepths(initiator, receive, queueDepths.initiatorSge(), queueDepths.receiveSge());
        return this;
    }

    @Override
    public ConnectionRequest withMaxSge(int initiator, int receive) {
        this.queueDepths = queueDepths.withMaxSge(initiator, receive);
        return this;
    }

    @Override
    public ConnectionRequest withSharedReceiveQueue(SharedReceiveQueue queue) {
        this.sharedQueue = SharedQueues.check(runtime, queue);
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
        DomainImpl in = domain; // checked before answering: a request refused here can still be answered
        try {
            in.checkOpen("accept a connection in");
            SharedQueues.checkDomain(sharedQueue, in);
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
        if (!answered.compareAndSet(false, true)) {
            return RdmaFuture.failed(alreadyAnswered());
        }
        if (sharedQueue != null && sharedQueue.isClosed()) {
            return RdmaFuture.failed(SharedQueues.closed(sharedQueue));
        }
        RdmaFuture<RdmaConnection> future = runtime.newFuture();
        QueueDepths depths = queueDepths.cappedTo(runtime.adapterInfo());
        ConnectionImpl connection = new ConnectionImpl(in, poller, depths, sharedQueue, onDisconnect, null);
        byte[] pd = privateData;
        ReadLimits limits = readLimits;
        poller.submit("accept", () -> request.accept(limits, depths, in.provider(),
                sharedQueue == null ? null : sharedQueue.provider(), pd, connection, new EstablishEvents() {
            @Override
            public void onEstablished(ProviderConnection providerConnection, ConnectionData data) {
                connection.established(providerConnection, data);
                runtime.recorder().established(providerConnection.localAddress(),
                        providerConnection.remoteAddress(), false);
                runtime.completions().deliver(future, connection, unwanted -> connection.discard());
            }

            @Override
            public void onFailed(RdmaException error) {
                runtime.completions().fail(future, error);
            }
        }), future, Status.INVALID_DEVICE_STATE, null);
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
        RdmaFuture<Void> future = runtime.newFuture();
        poller.submit("reject", () -> request.reject(pd, error -> {
            if (error == null) {
                runtime.recorder().rejected();
                runtime.completions().deliver(future, null);
            } else {
                runtime.completions().fail(future, error);
            }
        }), future, Status.INVALID_DEVICE_STATE, null);
        return future;
    }

    /** Rejects without private data on behalf of the framework (backlog full, listener closed, handler failed). */
    void refuse() {
        if (answered.compareAndSet(false, true)) {
            poller.endSubject("refuse", this, () -> request.reject(new byte[0], error -> {
                if (error == null) {
                    runtime.recorder().rejected();
                }
            }));
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
