package dev.rdmafutures.internal;

import dev.rdmafutures.Admission;
import dev.rdmafutures.LocalBuffer;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaException;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The API face of a provider's shared receive queue: receives are validated and take a slot here, then go to the
 * provider on the queue's poller; connections created with it take their receives from the provider's queue on
 * their own pollers. {@link #postedReceives()} is one count, raised by a post before it is handed over and lowered
 * when the receive leaves the queue (a connection took it, or it failed untaken), so it is exact right after a post
 * and the path of a receive takes no lock. A connection stops using the queue when its disconnect is asked for (or
 * it ends), and the provider's queue is destroyed once every connection that used it has ended.
 */
final class SharedReceiveQueueImpl implements SharedReceiveQueue, OperationTarget, SharedReceiveQueueEvents {
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final DomainImpl domain;
    private final QueueSlots slots;
    private final Posting posting;
    private final int depth;
    private final int maxSge;
    /** Guards the two counts of connections below. */
    private final Object counts = new Object();
    /** Established connections whose disconnect was not asked for: close() refuses while there are any. */
    private int using;
    /** Established connections not yet ended: the provider's queue is destroyed after the last. */
    private int attached;
    /** Receives posted here that no connection took yet and that did not fail. */
    private final AtomicInteger posted = new AtomicInteger();
    private final AtomicBoolean providerClosed = new AtomicBoolean();
    private ProviderSharedReceiveQueue provider;
    private RdmaFuture<Integer> limit;
    private volatile boolean closed;
    private final OperationCounters counters;

    SharedReceiveQueueImpl(DomainImpl domain, PollerProxy poller, int depth, int maxSge) {
        RuntimeOwner runtime = domain.owner();
        this.runtime = runtime;
        this.domain = domain;
        this.poller = poller;
        this.depth = depth;
        this.maxSge = maxSge;
        this.slots = new QueueSlots(new QueueDepths(1, depth, 1, maxSge),
                "SharedReceiveQueue.depth and availableSlots");
        this.counters = OperationCounters.shared(runtime.recorder());
        this.posting = new Posting(domain, poller, this, Admission.failFast(), (kind, explain) -> closed
                ? Posting.refuse(Status.INVALID_DEVICE_STATE, explain ? this + " is closed" : null) : Status.SUCCESS);
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

    DomainImpl domain() {
        return domain;
    }

    boolean isClosed() {
        return closed;
    }

    /** A connection using this queue is established. */
    void attach() {
        synchronized (counts) {
            using++;
            attached++;
        }
    }

    /** A connection using this queue is being disconnected (once per connection, before its {@link #detach}). */
    void release() {
        synchronized (counts) {
            using--;
        }
    }

    /** A connection using this queue ended; after the last one, a queue closed meanwhile is destroyed. */
    void detach() {
        boolean last;
        synchronized (counts) {
            last = --attached == 0;
        }
        if (last && closed) {
            closeProvider();
        }
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
    public OperationMetrics metrics() {
        return counters.snapshot();
    }

    @Override
    public OperationCounters counters() {
        return counters;
    }

    @Override
    public int postedReceives() {
        return posted.get();
    }

    @Override
    public CompletableFuture<SharedReceive> receive(LocalBuffer local) {
        SharedReceiveFuture future = new SharedReceiveFuture(runtime.driver());
        try {
            CallbackOperation op = posting.checked(WorkRequest.Kind.RECEIVE, local, null, 0, OperationFlags.NONE,
                    false);
            op.start(future, 0);
            posted.incrementAndGet(); // before the hand-over, after which a connection may take it at once
            try {
                posting.post(op, "RECEIVE");
            } catch (RdmaException e) {
                posted.decrementAndGet(); // abandoned: it reports no outcome
                throw e;
            }
        } catch (RdmaException e) {
            future.completeExceptionally(e);
        }
        return future;
    }

    @Override
    public Status receive(LocalBuffer local, SharedReceiveCallback callback, long context) {
        Objects.requireNonNull(local, "local"); // before the count, which a throw would leave raised
        Objects.requireNonNull(callback, "callback");
        posted.incrementAndGet();
        Status status = posting.postQuietly(local, callback, context);
        if (status != Status.SUCCESS) {
            posted.decrementAndGet(); // refused, or abandoned: it reports no outcome
        }
        return status;
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
    public boolean isEnding() {
        return closed;
    }

    @Override
    public void submit(WorkRequest request) {
        if (!closed) {
            provider.post(request); // a close after this check finds it in the provider's queue and fails it there
            return;
        }
        request.completion().failed(new RdmaException(Status.CANCELED, "the shared receive queue was closed"));
    }

    @Override
    public void sharedReceiveLeft() {
        posted.decrementAndGet();
    }

    /**
     * Closes the queue for posts; the provider's queue, with the receives still posted, is destroyed at once, or once
     * the connections being disconnected have ended.
     */
    @Override
    public void close() {
        boolean connectionsLeft;
        synchronized (counts) {
            if (using > 0) {
                throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " still serves " + using
                        + " connection(s); disconnect them first");
            }
            if (closed) {
                return;
            }
            closed = true;
            connectionsLeft = attached > 0;
        }
        onClosed(connectionsLeft);
    }

    /** Destroys the provider's queue, failing what is posted; the runtime's close calls it once connections ended. */
    void closeAfterConnections() {
        boolean wasClosed;
        synchronized (counts) {
            wasClosed = closed;
            closed = true;
        }
        if (wasClosed) {
            closeProvider(); // closed by the application while connections were ending: they have ended now
        } else {
            onClosed(false);
        }
    }

    /** The queue was closed for posts: the armed limit fails; the provider's queue goes unless connections remain. */
    private void onClosed(boolean connectionsLeft) {
        RdmaFuture<Integer> armed;
        synchronized (this) {
            armed = limit;
            limit = null;
        }
        if (armed != null) {
            runtime.completions().fail(armed, new RdmaException(Status.CANCELED,
                    "the shared receive queue was closed"));
        }
        domain.untrack(this);
        if (!connectionsLeft) {
            closeProvider();
        }
    }

    private void closeProvider() {
        if (providerClosed.compareAndSet(false, true) && !poller.post(provider::close)) {
            provider.close(); // the pollers have stopped: nothing else touches the queue
        }
    }

    @Override
    public String toString() {
        return "SharedReceiveQueue[depth " + depth + ", " + maxSge + " segments" + (closed ? ", closed" : "") + "]";
    }
}
