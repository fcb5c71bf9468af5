package dev.rdmafutures.internal;

import dev.rdmafutures.Batch;
import dev.rdmafutures.Completion;
import dev.rdmafutures.LocalBuffer;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A connection's operations collected and posted in one poller command. Every initiator operation but the last is
 * deferred, so the burst leaves with the last one; receives go to their own queue and are never deferred.
 */
final class BatchImpl implements Batch {
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final Posting posting;
    private final List<CompletableFuture<Completion>> futures = new ArrayList<>();
    private final List<CallbackOperation> operations = new ArrayList<>(); // the valid ones, in order
    private CallbackOperation lastInitiator;
    private boolean posted;

    BatchImpl(RuntimeOwner runtime, PollerProxy poller, Posting posting) {
        this.runtime = runtime;
        this.poller = poller;
        this.posting = posting;
    }

    private Batch add(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                      OperationFlags flags) {
        if (posted) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, "this batch was already posted");
        }
        OperationFuture future = new OperationFuture(runtime.driver());
        futures.add(future);
        try {
            CallbackOperation op = posting.checked(kind, local, remote, remoteOffset, flags, false);
            op.start(future, 0);
            if (kind != WorkRequest.Kind.RECEIVE) {
                if (lastInitiator != null) {
                    lastInitiator.addFlags(WorkRequest.DEFER);
                }
                lastInitiator = op;
            }
            operations.add(op);
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return this;
    }

    @Override
    public Batch read(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags) {
        return add(WorkRequest.Kind.READ, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public Batch write(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags) {
        return add(WorkRequest.Kind.WRITE, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public Batch send(LocalBuffer local, OperationFlags flags) {
        return add(WorkRequest.Kind.SEND, local, null, 0, flags);
    }

    @Override
    public Batch sendAndInvalidate(LocalBuffer local, int remoteToken, OperationFlags flags) {
        return add(WorkRequest.Kind.SEND_INVALIDATE, local, null, remoteToken, flags);
    }

    @Override
    public Batch receive(LocalBuffer local) {
        return add(WorkRequest.Kind.RECEIVE, local, null, 0, OperationFlags.NONE);
    }

    @Override
    public List<CompletableFuture<Completion>> post() {
        posted = true;
        if (!operations.isEmpty() && !poller.post(() -> operations.forEach(CallbackOperation::run))) {
            RdmaException closed = PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, "batch");
            operations.forEach(op -> op.failed(closed));
        }
        return futures;
    }
}
