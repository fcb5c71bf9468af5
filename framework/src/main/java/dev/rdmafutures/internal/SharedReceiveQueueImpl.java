package dev.rdmafutures.internal;

import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.SharedReceive;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.WorkRequest;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The API face of a provider's shared receive queue: receives are validated and take a slot here, then go to the
 * provider on the queue's poller; connections created with it take their receives from the provider's queue on
 * their own pollers.
 */
final class SharedReceiveQueueImpl implements SharedReceiveQueue, OperationTarget, SharedReceiveQueueEvents {
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final QueueSlots slots;
    private final Posting posting;
    private final int depth;
    private final int maxSge;
    private final AtomicInteger connections = new AtomicInteger();
    private ProviderSharedReceiveQueue provider;
    private RdmaFuture<Integer> limit;
    private volatile boolean closed;

    SharedReceiveQueueImpl(RuntimeOwner runtime, PollerProxy poller, int depth, int maxSge) {
        this.runtime = runtime;
        this.poller = poller;
        this.depth = depth;
        this.maxSge = maxSge;
        this.slots = new QueueSlots(new QueueDepths(1, depth, 1, maxSge),
                "SharedReceiveQueue.depth and availableSlots");
        this.posting = new Posting(runtime, poller, this, kind -> {
            if (closed) {
                throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " is closed");
            }
        });
    }

    /** Binds the provider's queue, created once this object could receive its events. */
    void bind(ProviderSharedReceiveQueue providerQueue) {
        this.provider = providerQueue;
    }

    ProviderSharedReceiveQueue provider() {
        return provider;
    }

    boolean belongsTo(RuntimeOwner owner) {
        return runtime == owner;
    }

    boolean isClosed() {
        return closed;
    }

    /** A connection using this queue is established. */
    void attach() {
        connections.incrementAndGet();
    }

    /** A connection using this queue ended. */
    void detach() {
        connections.decrementAndGet();
    }

    @Override
    public int depth() {
        return depth;
    }

    @Override
    public int maxSge() {
        return maxSge;
    }

    @Override
    public int availableSlots() {
        return slots.availableReceive();
    }

    @Override
    public int postedReceives() {
        return provider.posted();
    }

    @Override
    public CompletableFuture<SharedReceive> receive(MemoryRegion local, int offset, int length) {
        SharedReceiveFuture future = new SharedReceiveFuture(runtime.driver());
        try {
            posting.post(posting.startedShared(null, local, offset, length, future, 0), "RECEIVE");
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    @Override
    public CompletableFuture<SharedReceive> receive(ScatterGatherList local) {
        SharedReceiveFuture future = new SharedReceiveFuture(runtime.driver());
        try {
            posting.post(posting.startedShared(local, null, 0, 0, future, 0), "RECEIVE");
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    @Override
    public void receive(ScatterGatherList local, SharedReceiveCallback callback, long context) {
        posting.post(posting.startedShared(Objects.requireNonNull(local, "local"), null, 0, 0, callback,
                context), "RECEIVE");
    }

    @Override
    public void receive(MemoryRegion local, int offset, int length, SharedReceiveCallback callback, long context) {
        posting.post(posting.startedShared(null, local, offset, length, callback, context), "RECEIVE");
    }

    @Override
    public CompletableFuture<Integer> notifyBelow(int threshold) {
        if (threshold < 1 || threshold > depth) {
            throw new RdmaException(Status.INVALID_PARAMETER, "limit threshold " + threshold + " must be 1.." + depth);
        }
        if (closed) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " is closed");
        }
        RdmaFuture<Integer> next = runtime.newFuture();
        RdmaFuture<Integer> replaced;
        synchronized (this) {
            replaced = limit;
            limit = next;
        }
        if (replaced != null) {
            next.whenComplete((remaining, error) -> {
                if (error == null) {
                    replaced.complete(remaining);
                } else {
                    replaced.completeExceptionally(error);
                }
            });
        }
        poller.submit("arm the shared receive queue's limit", () -> provider.armLimit(threshold), next,
                Status.INVALID_DEVICE_STATE, null);
        return next;
    }

    @Override
    public void onLimitReached(int remaining) {
        RdmaFuture<Integer> armed;
        synchronized (this) {
            armed = limit;
            limit = null;
        }
        if (armed != null) {
            runtime.completions().deliver(armed, remaining);
        }
    }

    @Override
    public QueueSlots slots() {
        return slots;
    }

    @Override
    public Completions completions() {
        return runtime.completions();
    }

    @Override
    public void submit(WorkRequest request) {
        if (closed) {
            request.completion().failed(new RdmaException(Status.CANCELED, "the shared receive queue was closed"));
            return;
        }
        provider.post(request);
    }

    @Override
    public void close() {
        if (connections.get() > 0) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " still serves " + connections.get()
                    + " connection(s); disconnect them first");
        }
        closeAfterConnections();
    }

    /** Destroys the provider's queue, failing what is posted; the runtime's close calls it once connections ended. */
    void closeAfterConnections() {
        if (closed) {
            return;
        }
        closed = true;
        RdmaFuture<Integer> armed;
        synchronized (this) {
            armed = limit;
            limit = null;
        }
        if (armed != null) {
            runtime.completions().fail(armed, new RdmaException(Status.CANCELED, "the shared receive queue was closed"));
        }
        if (!poller.post(provider::close)) {
            provider.close(); // the pollers have stopped: nothing else touches the queue
        }
        runtime.untrack(this);
    }

    @Override
    public String toString() {
        return "SharedReceiveQueue[depth " + depth + ", " + maxSge + " segments" + (closed ? ", closed" : "") + "]";
    }
}
