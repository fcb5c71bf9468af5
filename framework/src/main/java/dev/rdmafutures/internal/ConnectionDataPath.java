package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Batch;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.FastRegion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.OperationFlag;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The data-path half of {@link ConnectionImpl}: every form of READ, WRITE, SEND and RECEIVE (one buffer or a
 * scatter-gather list; future, callback or batch), and the window and fast-registration requests, turned into one
 * validated {@link CallbackOperation} by {@link Posting}. The lifecycle half (establishment, the end, the provider) is the subclass's.
 */
abstract sealed class ConnectionDataPath implements RdmaConnection permits ConnectionImpl {
    private static final OperationFlag[] NO_FLAGS = {};
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final Posting posting;

    ConnectionDataPath(RuntimeOwner runtime, PollerProxy poller) {
        this.runtime = runtime;
        this.poller = poller;
        this.posting = new Posting(runtime, poller, (OperationTarget) this, runtime.admission(), this::checkAccepts);
    }

    /** The last check of every post, after its arguments': throws the refusal when the connection cannot take it. */
    abstract void checkAccepts(WorkRequest.Kind kind);

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
                Objects.requireNonNull(remote, "remote"), remoteOffset, flags, callback, context, true), "READ");
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
                Objects.requireNonNull(remote, "remote"), remoteOffset, flags, callback, context, true), "WRITE");
    }

    @Override
    public void send(MemoryRegion local, int offset, int length, CompletionCallback callback, long context) {
        send(local, offset, length, callback, context, NO_FLAGS);
    }

    @Override
    public void send(MemoryRegion local, int offset, int length, CompletionCallback callback, long context,
                     OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.SEND, local, offset, length, null, 0, flags, callback,
                context, true), "SEND");
    }

    @Override
    public void receive(MemoryRegion local, int offset, int length, CompletionCallback callback, long context) {
        posting.post(posting.started(WorkRequest.Kind.RECEIVE, local, offset, length, null, 0, NO_FLAGS, callback,
                context, true), "RECEIVE");
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
                remoteOffset, flags, callback, context, true), "READ");
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
                remoteOffset, flags, callback, context, true), "WRITE");
    }

    @Override
    public void send(ScatterGatherList local, CompletionCallback callback, long context) {
        send(local, callback, context, NO_FLAGS);
    }

    @Override
    public void send(ScatterGatherList local, CompletionCallback callback, long context, OperationFlag... flags) {
        posting.post(posting.started(WorkRequest.Kind.SEND, local, null, 0, flags, callback, context, true), "SEND");
    }

    @Override
    public void receive(ScatterGatherList local, CompletionCallback callback, long context) {
        posting.post(posting.started(WorkRequest.Kind.RECEIVE, local, null, 0, NO_FLAGS, callback, context, true),
                "RECEIVE");
    }

    private CompletableFuture<Completion> future(WorkRequest.Kind kind, MemoryRegion local, int offset, int length,
                                                 RemoteBuffer remote, long remoteOffset, OperationFlag[] flags) {
        OperationFuture future = new OperationFuture(runtime.driver());
        try {
            posting.post(posting.started(kind, local, offset, length, remote, remoteOffset, flags, future, 0, true),
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
            posting.post(posting.started(kind, local, remote, remoteOffset, flags, future, 0, true), kind.name());
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

    @Override
    public CompletableFuture<RemoteBuffer> bind(MemoryWindow window, MemoryRegion region, int offset, int length,
                                                Access... rights) {
        try {
            MemoryWindowImpl w = Windows.check(runtime, window);
            Objects.requireNonNull(region, "region");
            int bits = Windows.rightsBits(region, rights);
            WindowFuture<RemoteBuffer> future = WindowFuture.bind(runtime.driver(), w, length);
            posting.post(posting.startedWindow(WorkRequest.Kind.BIND_WINDOW, w.provider(), region, offset, length,
                    bits, future), "bind");
            return future;
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> invalidate(MemoryWindow window) {
        return invalidateToken(() -> Windows.check(runtime, window).provider());
    }

    /** Posts an invalidation of the window or fast-register slot {@code checked} gives once it checked it. */
    private CompletableFuture<Void> invalidateToken(Supplier<ProviderWindow> checked) {
        try {
            ProviderWindow target = checked.get();
            WindowFuture<Void> future = WindowFuture.invalidate(runtime.driver());
            posting.post(posting.startedWindow(WorkRequest.Kind.INVALIDATE_WINDOW, target, null, 0, 0, 0, future),
                    "invalidate");
            return future;
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
    }

    @Override
    public CompletableFuture<MemoryRegion> fastRegister(FastRegion slot, ByteBuffer bytes, Access... access) {
        try {
            FastRegionImpl s = Windows.check(runtime, slot);
            MemoryRegionImpl region = Windows.prepare(runtime, s, bytes, access);
            WindowFuture<MemoryRegion> future = WindowFuture.fastRegister(runtime.driver(), region);
            posting.post(posting.startedWindow(WorkRequest.Kind.FAST_REGISTER, s.provider(), region, 0,
                    region.length(), 0, future), "fastRegister");
            return future;
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> invalidate(FastRegion slot) {
        return invalidateToken(() -> Windows.check(runtime, slot).provider());
    }
}
