package dev.rdmafutures;

import dev.rdmafutures.poller.Poller;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.PendingHandle;
import dev.rdmafutures.spi.ProviderConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * One connect attempt, from {@code start()} to its outcome: owns the deadline, cancellation, the shared-endpoint
 * destination it reserved, and for two-phase connects the {@link PendingConnection}. Its event methods run on
 * the poller that drives the attempt.
 */
final class ActiveConnect implements ConnectEvents {
    private final RdmaRuntime runtime;
    private final Poller poller;
    private final ConnectSpec spec;
    private final Duration timeout;
    private final SharedEndpointImpl shared;
    private final ConnectionImpl connection;
    private final RdmaFuture<RdmaConnection> established = new RdmaFuture<>();
    private final RdmaFuture<PendingConnection> accepted;
    private ConnectAttempt attempt;
    private Cancellable deadline;

    private ActiveConnect(RdmaRuntime runtime, Poller poller, ConnectSpec spec, Duration timeout,
                          SharedEndpointImpl shared, Consumer<DisconnectReason> onDisconnect) {
        this.runtime = runtime;
        this.poller = poller;
        this.spec = spec;
        this.timeout = timeout;
        this.shared = shared;
        this.accepted = spec.twoPhase() ? new RdmaFuture<>() : null;
        this.connection = new ConnectionImpl(runtime, poller, onDisconnect, this::releaseDestination);
    }

    /** Starts an attempt on the next poller; returns the future the caller waits on (one- or two-phase). */
    static CompletableFuture<?> start(RdmaRuntime runtime, ConnectSpec spec, Duration timeout,
                                      SharedEndpointImpl shared, Consumer<DisconnectReason> onDisconnect) {
        if (shared != null) {
            RdmaException refused = shared.reserve(spec.destination());
            if (refused != null) {
                return RdmaFuture.failed(refused);
            }
        }
        ActiveConnect c = new ActiveConnect(runtime, runtime.nextPoller(), spec, timeout, shared, onDisconnect);
        CompletableFuture<?> handedOut = c.accepted != null ? c.accepted : c.established;
        handedOut.whenComplete((v, e) -> {
            if (e instanceof CancellationException) {
                c.poller.execute(() -> c.abort(new RdmaException(Status.CANCELED, "connect was cancelled")));
            }
        });
        if (!c.poller.execute(c::begin)) {
            c.releaseDestination();
            handedOut.completeExceptionally(Validation.closed("connect"));
        }
        return handedOut;
    }

    private void begin() {
        if ((accepted != null ? accepted : established).isDone()) {
            releaseDestination(); // cancelled before it started
            return;
        }
        deadline = poller.schedule(timeout, () -> abort(new RdmaException(Status.IO_TIMEOUT,
                "connection to " + spec.destination() + " not established within " + timeout)));
        attempt = poller.eventLoop().connect(spec, connection, this);
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
        deadline = poller.schedule(timeout, () -> p.expire(new RdmaException(Status.IO_TIMEOUT,
                "pending connection to " + spec.destination() + " was neither completed nor rejected within "
                        + timeout)));
        runtime.completions().deliver(accepted, p, unwanted -> poller.execute(pending::reject));
    }

    @Override
    public void onEstablished(ProviderConnection providerConnection, ConnectionData data) {
        cancelDeadline();
        connection.established(providerConnection, data);
        runtime.completions().deliver(established, connection, unwanted -> connection.discard());
    }

    @Override
    public void onFailed(RdmaException error) {
        cancelDeadline();
        releaseDestination();
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

    Poller poller() {
        return poller;
    }

    RdmaFuture<RdmaConnection> establishedFuture() {
        return established;
    }

    InetSocketAddress destination() {
        return spec.destination();
    }
}
