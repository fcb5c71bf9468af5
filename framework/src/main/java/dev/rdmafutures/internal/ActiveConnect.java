package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.PendingHandle;
import dev.rdmafutures.spi.ProviderConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One connect attempt, from {@code start()} to its outcome: owns the deadline, cancellation, the shared-endpoint
 * destination it reserved, and for two-phase connects the {@link PendingConnection}. Its event methods run on
 * the poller that drives the attempt.
 */
final class ActiveConnect implements ConnectEvents {
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final ConnectSpec spec;
    private final Duration timeout;
    private final SharedEndpointImpl shared;
    private final ConnectionImpl connection;
    private final RdmaFuture<RdmaConnection> established;
    private final RdmaFuture<PendingConnection> accepted;
    private ConnectAttempt attempt;
    private Cancellable deadline;

    private ActiveConnect(DomainImpl domain, PollerProxy poller, ConnectSpec spec, Duration timeout,
                          SharedEndpointImpl shared, SharedReceiveQueueImpl sharedQueue,
                          Consumer<DisconnectReason> onDisconnect) {
        RuntimeOwner runtime = domain.owner();
        this.runtime = runtime;
        this.poller = poller;
        this.spec = spec;
        this.timeout = timeout;
        this.shared = shared;
        this.established = runtime.newFuture();
        this.accepted = spec.twoPhase() ? runtime.newFuture() : null;
        this.connection = new ConnectionImpl(domain, poller, spec.queueDepths(), sharedQueue, onDisconnect,
                this::releaseDestination);
    }

    /** Starts an attempt on the next poller; returns the future the caller waits on (one- or two-phase). */
    static CompletableFuture<?> start(DomainImpl domain, ConnectSpec spec, Duration timeout,
                                      SharedEndpointImpl shared, SharedReceiveQueueImpl sharedQueue,
                                      Consumer<DisconnectReason> onDisconnect) {
        RuntimeOwner runtime = domain.owner();
        if (shared != null) {
            RdmaException refused = shared.reserve(spec.destination());
            if (refused != null) {
                return RdmaFuture.failed(refused);
            }
        }
        ActiveConnect c = new ActiveConnect(domain, runtime.nextPoller(), spec, timeout, shared, sharedQueue,
                onDisconnect);
        CompletableFuture<?> handedOut = c.accepted != null ? c.accepted : c.established;
        handedOut.whenComplete((v, e) -> {
            if (e instanceof CancellationException) {
                c.poller.endSubject("cancel", c, () -> c.abort(new RdmaException(Status.CANCELED,
                        "connect was cancelled")));
            }
        });
        c.poller.submit("connect", c::begin, handedOut, Status.INVALID_DEVICE_STATE, c::releaseDestination);
        return handedOut;
    }

    /** On the poller: arms the deadline and hands the attempt to the event loop. */
    private void begin() {
        if ((accepted != null ? accepted : established).isDone()) {
            releaseDestination(); // cancelled before it started
            return;
        }
        deadline = poller.poller().schedule(timeout, () -> abort(new RdmaException(Status.IO_TIMEOUT,
                "connection to " + spec.destination() + " not established within " + timeout)));
        attempt = poller.poller().eventLoop().connect(spec, connection, this);
    }

    private void abort(RdmaException reason) {
        if (attempt != null) {
            attempt.abort(reason);
        }
    }

    @Override
    public void onAccepted(PendingHandle pending, ConnectionData data) {
        cancelDeadline();
        PendingConnectionImpl p = new PendingConnectionImpl(this, pending, data);
        deadline = poller.poller().schedule(timeout, () -> p.expire(new RdmaException(Status.IO_TIMEOUT,
                "pending connection to " + spec.destination() + " was neither completed nor rejected within "
                        + timeout)));
        runtime.completions().deliver(accepted, p,
                unwanted -> poller.endSubject("reject an unwanted pending connection", p, pending::reject));
    }

    @Override
    public void onEstablished(ProviderConnection providerConnection, ConnectionData data) {
        cancelDeadline();
        connection.established(providerConnection, data);
        runtime.recorder().established(providerConnection.localAddress(), providerConnection.remoteAddress(), true);
        runtime.completions().deliver(established, connection, unwanted -> connection.discard());
    }

    @Override
    public void onFailed(RdmaException error) {
        cancelDeadline();
        releaseDestination();
        runtime.recorder().connectFailed(spec.destination(), error);
        if (accepted != null && !accepted.isDone()) {
            runtime.completions().fail(accepted, error);
        }
        runtime.completions().fail(established, error);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel();
            deadline = null;
        }
    }

    private void releaseDestination() {
        if (shared != null) {
            shared.release(spec.destination());
        }
    }

    PollerProxy poller() {
        return poller;
    }

    RuntimeOwner owner() {
        return runtime;
    }

    RdmaFuture<RdmaConnection> establishedFuture() {
        return established;
    }

    InetSocketAddress destination() {
        return spec.destination();
    }

    @Override
    public String toString() {
        return "connect to " + spec.destination();
    }
}
