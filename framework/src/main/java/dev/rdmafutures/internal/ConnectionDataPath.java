package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.Batch;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.FastRegion;
import dev.rdmafutures.LocalBuffer;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
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
    private final RuntimeOwner runtime;
    private final DomainImpl domain;
    private final PollerProxy poller;
    private final Posting posting;

    ConnectionDataPath(DomainImpl domain, PollerProxy poller) {
        this.runtime = domain.owner();
        this.domain = domain;
        this.poller = poller;
        this.posting = new Posting(domain, poller, (OperationTarget) this, runtime.admission(), this::checkAccepts);
    }

    /** The last check of every post, after its arguments': see {@link Posting.Guard}. */
    abstract Status checkAccepts(WorkRequest.Kind kind, boolean explain);

    @Override
    public CompletableFuture<Completion> read(LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                                              OperationFlags flags) {
        return future(WorkRequest.Kind.READ, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public Status read(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags,
                       CompletionCallback callback, long context) {
        return posting.postQuietly(WorkRequest.Kind.READ, local, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags, callback, context);
    }

    @Override
    public CompletableFuture<Completion> write(LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                                               OperationFlags flags) {
        return future(WorkRequest.Kind.WRITE, local, Objects.requireNonNull(remote, "remote"), remoteOffset, flags);
    }

    @Override
    public Status write(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags,
                        CompletionCallback callback, long context) {
        return posting.postQuietly(WorkRequest.Kind.WRITE, local, Objects.requireNonNull(remote, "remote"),
                remoteOffset, flags, callback, context);
    }

    @Override
    public CompletableFuture<Completion> send(LocalBuffer local, OperationFlags flags) {
        return future(WorkRequest.Kind.SEND, local, null, 0, flags);
    }

    @Override
    public Status send(LocalBuffer local, OperationFlags flags, CompletionCallback callback, long context) {
        return posting.postQuietly(WorkRequest.Kind.SEND, local, null, 0, flags, callback, context);
    }

    @Override
    public CompletableFuture<Completion> sendAndInvalidate(LocalBuffer local, int remoteToken, OperationFlags flags) {
        return future(WorkRequest.Kind.SEND_INVALIDATE, local, null, remoteToken, flags);
    }

    @Override
    public Status sendAndInvalidate(LocalBuffer local, int remoteToken, OperationFlags flags,
                                    CompletionCallback callback, long context) {
        return posting.postQuietly(WorkRequest.Kind.SEND_INVALIDATE, local, null, remoteToken, flags, callback,
                context);
    }

    @Override
    public CompletableFuture<Completion> receive(LocalBuffer local) {
        return future(WorkRequest.Kind.RECEIVE, local, null, 0, OperationFlags.NONE);
    }

    @Override
    public Status receive(LocalBuffer local, CompletionCallback callback, long context) {
        return posting.postQuietly(WorkRequest.Kind.RECEIVE, local, null, 0, OperationFlags.NONE, callback, context);
    }

    @Override
    public Batch batch() {
        return new BatchImpl(runtime, poller, posting);
    }

    private CompletableFuture<Completion> future(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote,
                                                 long remoteOffset, OperationFlags flags) {
        OperationFuture future = new OperationFuture(runtime.driver());
        try {
            CallbackOperation op = posting.checked(kind, local, remote, remoteOffset, flags, true);
            op.start(future, 0);
            posting.post(op, kind.name());
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    @Override
    public CompletableFuture<RemoteBuffer> bind(MemoryWindow window, MemoryRegion region, int offset, int length,
                                                Access... rights) {
        try {
            MemoryWindowImpl w = Windows.check(domain, window);
            Objects.requireNonNull(region, "region");
            int bits = Windows.rightsBits(region, rights);
            WindowFuture<RemoteBuffer> future = WindowFuture.bind(runtime.driver(), w, length);
            posted(posting.checkedWindow(WorkRequest.Kind.BIND_WINDOW, w.provider(), region, offset, length, bits),
                    future, "bind");
            return future;
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> invalidate(MemoryWindow window) {
        return invalidateToken(() -> Windows.check(domain, window).provider());
    }

    /** Posts an invalidation of the window or fast-register slot {@code checked} gives once it checked it. */
    private CompletableFuture<Void> invalidateToken(Supplier<ProviderWindow> checked) {
        try {
            ProviderWindow target = checked.get();
            WindowFuture<Void> future = WindowFuture.invalidate(runtime.driver());
            posted(posting.checkedWindow(WorkRequest.Kind.INVALIDATE_WINDOW, target, null, 0, 0, 0), future,
                    "invalidate");
            return future;
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
    }

    @Override
    public CompletableFuture<MemoryRegion> fastRegister(FastRegion slot, ByteBuffer bytes, Access... access) {
        try {
            FastRegionImpl s = Windows.check(domain, slot);
            MemoryRegionImpl region = Windows.prepare(runtime, s, bytes, access);
            WindowFuture<MemoryRegion> future = WindowFuture.fastRegister(runtime.driver(), region);
            posted(posting.checkedWindow(WorkRequest.Kind.FAST_REGISTER, s.provider(), region, 0, region.length(),
                    0), future, "fastRegister");
            return future;
        } catch (RdmaException e) {
            return RdmaFuture.failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> invalidate(FastRegion slot) {
        return invalidateToken(() -> Windows.check(domain, slot).provider());
    }

    private void posted(CallbackOperation op, CompletionCallback future, String what) {
        op.start(future, 0);
        posting.post(op, what);
    }
}
