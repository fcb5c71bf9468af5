package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectBuilder;
import dev.rdmafutures.DeferredConnectBuilder;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.ProtectionDomain;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.SharedEndpoint;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ConnectSpec;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** The connect-request builder; single use: a second {@code start()} fails with CONNECTION_ACTIVE. */
final class ConnectBuilderImpl implements ConnectBuilder {
    private final RuntimeOwner runtime;
    private final InetSocketAddress destination;
    private final AtomicBoolean started = new AtomicBoolean();
    private ReadLimits readLimits = ReadLimits.DEFAULT;
    private QueueDepths queueDepths = QueueDepths.DEFAULT;
    private SharedReceiveQueueImpl sharedQueue;
    private DomainImpl domain;
    private byte[] privateData = new byte[0];
    private InetSocketAddress localAddress;
    private SharedEndpointImpl shared;
    private Duration timeout;
    private Consumer<DisconnectReason> onDisconnect;
    private boolean twoPhase;

    ConnectBuilderImpl(RuntimeOwner runtime, InetSocketAddress destination) {
        this.runtime = runtime;
        this.destination = Validation.destination(destination);
        this.timeout = runtime.connectTimeout();
        this.domain = runtime.defaultDomain();
    }

    @Override
    public ConnectBuilder withReadLimits(int inbound, int outbound) {
        this.readLimits = ReadLimits.requested(inbound, outbound);
        return this;
    }

    @Override
    public ConnectBuilder withQueueDepths(int initiator, int receive) {
        this.queueDepths = new QueueDepths(initiator, receive, queueDepths.initiatorSge(), queueDepths.receiveSge());
        return this;
    }

    @Override
    public ConnectBuilder withMaxSge(int initiator, int receive) {
        this.queueDepths = queueDepths.withMaxSge(initiator, receive);
        return this;
    }

    @Override
    public ConnectBuilder inDomain(ProtectionDomain domain) {
        this.domain = DomainImpl.check(runtime, domain);
        return this;
    }

    @Override
    public ConnectBuilder withSharedReceiveQueue(SharedReceiveQueue queue) {
        this.sharedQueue = SharedQueues.check(runtime, queue);
        return this;
    }

    @Override
    public ConnectBuilder withPrivateData(byte[] data) {
        this.privateData = Validation.privateData(data);
        return this;
    }

    @Override
    public ConnectBuilder from(InetSocketAddress local) {
        this.localAddress = Validation.local(local, "localAddress");
        this.shared = null;
        return this;
    }

    @Override
    public ConnectBuilder from(SharedEndpoint sharedEndpoint) {
        Objects.requireNonNull(sharedEndpoint, "sharedEndpoint");
        if (!(sharedEndpoint instanceof SharedEndpointImpl impl) || !impl.belongsTo(runtime)) {
            throw new RdmaException(Status.INVALID_PARAMETER, "shared endpoint " + sharedEndpoint
                    + " does not belong to this runtime");
        }
        this.shared = impl;
        this.localAddress = null;
        return this;
    }

    @Override
    public ConnectBuilder withTimeout(Duration connectTimeout) {
        this.timeout = Validation.timeout(connectTimeout, "connect timeout");
        return this;
    }

    @Override
    public ConnectBuilder onDisconnect(Consumer<DisconnectReason> callback) {
        this.onDisconnect = Objects.requireNonNull(callback, "callback");
        return this;
    }

    @Override
    public DeferredConnectBuilder deferCompletion() {
        this.twoPhase = true;
        return this::startDeferred;
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<RdmaConnection> start() {
        if (twoPhase) {
            return RdmaFuture.failed(new RdmaException(Status.INVALID_DEVICE_STATE, "deferCompletion() was called: "
                    + "start() of the DeferredConnectBuilder it returned gives the PendingConnection"));
        }
        return (CompletableFuture<RdmaConnection>) launch();
    }

    @SuppressWarnings("unchecked")
    CompletableFuture<PendingConnection> startDeferred() {
        return (CompletableFuture<PendingConnection>) launch();
    }

    private CompletableFuture<?> launch() {
        if (!started.compareAndSet(false, true)) {
            return RdmaFuture.failed(new RdmaException(Status.CONNECTION_ACTIVE,
                    "this request to " + destination + " was already started; build a new one per connection"));
        }
        if (runtime.isClosed()) {
            return RdmaFuture.failed(Validation.closed("connect"));
        }
        int max = runtime.adapterInfo().maxConnectPrivateData();
        if (privateData.length > max) {
            return RdmaFuture.failed(Validation.overflow("connect", privateData.length, max));
        }
        if (sharedQueue != null && sharedQueue.isClosed()) {
            return RdmaFuture.failed(SharedQueues.closed(sharedQueue));
        }
        try {
            domain.checkOpen("open a connection in");
            SharedQueues.checkDomain(sharedQueue, domain);
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
        ConnectSpec spec = new ConnectSpec(destination, localAddress, shared == null ? null : shared.address(),
                readLimits, queueDepths.cappedTo(runtime.adapterInfo()), domain.provider(),
                sharedQueue == null ? null : sharedQueue.provider(), privateData, twoPhase);
        return ActiveConnect.start(domain, spec, timeout, shared, sharedQueue, onDisconnect);
    }
}
