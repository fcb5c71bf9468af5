package dev.rdmafutures.internal;

import dev.rdmafutures.Batch;
import dev.rdmafutures.Completion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlag;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** A connection's operations collected and posted in one poller command, all but the last deferred. */
final class BatchImpl implements Batch {
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final Posting posting;
    private final List<CompletableFuture<Completion>> futures = new ArrayList<>();
    private final List<CallbackOperation> operations = new ArrayList<>(); // the valid ones, in order
    private boolean posted;

    BatchImpl(RuntimeOwner runtime, PollerProxy poller, Posting posting) {
        this.runtime = runtime;
        this.poller = poller;
        this.posting = posting;
    }

    private Batch add(WorkRequest.Kind kind, MemoryRegion local, int offset, int length, RemoteBuffer remote,
                      long remoteOffset, OperationFlag[] flags) {
        OperationFuture future = newFuture();
        try {
            operations.add(posting.started(kind, local, offset, length, remote, remoteOffset, flags, future, 0,
                    false));
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return this;
    }

    private Batch add(WorkRequest.Kind kind, ScatterGatherList local, RemoteBuffer remote, long remoteOffset,
                      OperationFlag[] flags) {
        OperationFuture future = newFuture();
        try {
            operations.add(posting.started(kind, local, remote, remoteOffset, flags, future, 0, false));
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return this;
    }

    private OperationFuture newFuture() {
        if (posted) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, "this batch was already posted");
        }
        OperationFuture future = new OperationFuture(runtime.driver());
        futures.add(future);
        return future;
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
    public Batch read(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, OperationFlag... flags) {
        return add(WorkRequest.Kind.READ, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public Batch write(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, OperationFlag... flags) {
        return add(WorkRequest.Kind.WRITE, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public Batch send(ScatterGatherList local, OperationFlag... flags) {
        return add(WorkRequest.Kind.SEND, local, null, 0, flags);
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
