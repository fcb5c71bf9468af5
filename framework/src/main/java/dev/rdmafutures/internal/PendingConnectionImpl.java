package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.PendingHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** A two-phase connect the peer accepted; {@link #complete()} or {@link #reject()} hands the decision to the poller. */
final class PendingConnectionImpl implements PendingConnection {
    private final ActiveConnect connect;
    private final PendingHandle handle;
    private final ConnectionData data;
    private final AtomicBoolean decided = new AtomicBoolean();
    private final RdmaFuture<Void> rejected;

    PendingConnectionImpl(ActiveConnect connect, PendingHandle handle, ConnectionData data) {
        this.connect = connect;
        this.handle = handle;
        this.data = data;
        this.rejected = connect.owner().newFuture();
    }

    @Override
    public ConnectionData connectionData() {
        return data;
    }

    @Override
    public CompletableFuture<RdmaConnection> complete() {
        if (!decided.compareAndSet(false, true)) {
            return RdmaFuture.failed(alreadyDecided());
        }
        RdmaFuture<RdmaConnection> established = connect.establishedFuture();
        connect.poller().submit("complete", handle::complete, established, Status.INVALID_DEVICE_STATE, null);
        return established;
    }

    @Override
    public CompletableFuture<Void> reject() {
        if (!decided.compareAndSet(false, true)) {
            return RdmaFuture.failed(alreadyDecided());
        }
        if (!connect.poller().endSubject("reject", this, () -> {
            handle.reject();
            rejected.complete(null);
        })) {
            rejected.complete(null); // the runtime's close released the transport already
        }
        return rejected;
    }

    /**
     * The pending deadline passed: the established future fails with the timeout and the provider abandons the
     * connection telling the peer it timed out, so the peer's accept fails with IO_TIMEOUT (NdkAcceptEx); a later
     * complete() or reject() is refused as already decided.
     */
    void expire(RdmaException timeout) {
        if (decided.compareAndSet(false, true)) {
            connect.establishedFuture().completeExceptionally(timeout);
            handle.expire(timeout);
        }
    }

    private RdmaException alreadyDecided() {
        return new RdmaException(Status.INVALID_DEVICE_STATE, "pending connection to " + connect.destination()
                + " was already completed, rejected or expired");
    }
}
