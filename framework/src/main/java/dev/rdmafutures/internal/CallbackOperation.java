package dev.rdmafutures.internal;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.providerkit.ManyToManyArrayQueue;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkCompletion;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * One posted operation, holding a slot of its target's {@link QueueSlots} from its post until its outcome is
 * reported, its outcome going to a {@link CompletionCallback} (the user's, or an {@link OperationFuture}) or, for a
 * shared receive queue, a {@link SharedReceiveCallback}. Reusable: it is its own request (with its own copy of the
 * segments), its own poller command (submit the request) and its own completion, and once the callback has returned
 * it goes back to its target's {@link Pool}, so a steady stream of operations allocates nothing.
 */
final class CallbackOperation implements WorkRequest, WorkCompletion, Runnable {
    private static final int INITIAL_SEGMENTS = 4;
    private final Pool pool;
    /**
     * Taken from its pool on the poller thread, so it goes back there; one made elsewhere is garbage after use. A
     * shared receive queue's pool takes back every operation.
     */
    private final boolean pooled;
    private final Completions completions;
    private final Runnable deliver = this::deliver;
    private CompletionCallback callback;
    private SharedReceiveCallback sharedCallback;
    private long context;
    // The outcome, from the provider's report until the callback ran.
    private int bytes;
    private int invalidatedToken;
    private boolean invalidated;
    private RdmaException error;
    private ConnectionImpl arrivedOn;
    /** A shared queue's receive was reported taken ({@link #arrivedOn}): it left the queue's count then. */
    private boolean taken;
    // The request, filled in before each post.
    private Kind kind;
    private int segmentCount;
    private MemoryRegionImpl[] regions = new MemoryRegionImpl[INITIAL_SEGMENTS];
    private ProviderRegion[] providerRegions = new ProviderRegion[INITIAL_SEGMENTS];
    private int[] offsets = new int[INITIAL_SEGMENTS];
    private int[] lengths = new int[INITIAL_SEGMENTS];
    private int length;
    private long remoteAddress;
    private int remoteToken;
    private int flags;
    private ProviderWindow window;
    private int boundToken;
    /** When it was handed to the provider, for a JFR slow-operation event; 0 when not timed. */
    private long submittedAt;
    /** Whether it holds a slot of its target, to give back when reported. */
    private boolean holdsSlot;
    /** Whether it waits for a slot ({@link SlotWaiters}), and by when it must get one, on the poller's ticker. */
    private boolean waitingForSlot;
    private long admitBy;

    private CallbackOperation(Pool pool, boolean pooled) {
        this.pool = pool;
        this.pooled = pooled;
        this.completions = pool.target.completions();
    }

    /** Starts filling the request in: its kind, remote side and flags, and no segments yet. */
    void set(Kind kind, long remoteAddress, int remoteToken, int flags) {
        this.kind = kind;
        this.remoteAddress = remoteAddress;
        this.remoteToken = remoteToken;
        this.flags = flags;
        this.segmentCount = 0;
        this.length = 0;
        this.window = null;
    }

    /** The window a BIND_WINDOW or INVALIDATE_WINDOW request acts on. */
    void setWindow(ProviderWindow target) {
        this.window = target;
    }

    /** Appends a checked segment; the arrays grow once to the largest count the target uses, then stay. */
    void addSegment(MemoryRegionImpl region, int offset, int segmentLength) {
        int i = segmentCount;
        if (i == regions.length) {
            int n = regions.length * 2;
            regions = Arrays.copyOf(regions, n);
            providerRegions = Arrays.copyOf(providerRegions, n);
            offsets = Arrays.copyOf(offsets, n);
            lengths = Arrays.copyOf(lengths, n);
        }
        regions[i] = region;
        providerRegions[i] = region.provider();
        offsets[i] = offset;
        lengths[i] = segmentLength;
        length += segmentLength;
        segmentCount = i + 1;
    }

    /** It took a slot of its target at its post. */
    void holdSlot() {
        holdsSlot = true;
    }

    /** It found no slot and waits for one until {@code deadline}: its poller command queues it, not submits it. */
    void awaitSlot(long deadline) {
        waitingForSlot = true;
        admitBy = deadline;
    }

    long admitBy() {
        return admitBy;
    }

    /** On the poller: {@link SlotWaiters} took a slot for it; it goes to the target now. */
    void admitted() {
        waitingForSlot = false;
        holdsSlot = true;
        submit();
    }

    /** Where the outcome goes; holds the segments' regions until it is reported. */
    void start(CompletionCallback target, long ctx) {
        this.callback = target;
        this.context = ctx;
        acquireRegions();
    }

    /** As {@link #start(CompletionCallback, long)}, for a shared receive queue's receive. */
    void start(SharedReceiveCallback target, long ctx) {
        this.sharedCallback = target;
        this.context = ctx;
        acquireRegions();
    }

    private void acquireRegions() {
        for (int i = 0; i < segmentCount; i++) {
            regions[i].acquire();
        }
    }

    private void releaseRegions() {
        for (int i = 0; i < segmentCount; i++) {
            regions[i].release();
            regions[i] = null;
            providerRegions[i] = null;
        }
    }

    /** Validation failed before {@link #start}: drop the segments, which hold nothing yet. */
    void forgetSegments() {
        Arrays.fill(regions, 0, segmentCount, null);
        Arrays.fill(providerRegions, 0, segmentCount, null);
        segmentCount = 0;
    }

    /**
     * The poller refused the command: undo {@link #start} and give the slot (or the place among the waiters) back;
     * the caller reports the failure.
     */
    void abandon() {
        releaseRegions();
        if (holdsSlot) {
            holdsSlot = false;
            pool.target.slots().release(kind);
        } else if (waitingForSlot) {
            waitingForSlot = false;
            pool.waiters.unreserve(kind);
        }
        clear();
    }

    /** The poller command: hand the request to the provider, or, waiting for a slot, join the waiters. */
    @Override
    public void run() {
        if (waitingForSlot) {
            pool.waiters.arrive(this);
        } else {
            submit();
        }
    }

    private void submit() {
        OperationCounters counters = pool.target.counters();
        counters.posted();
        submittedAt = counters.runtime().startTiming();
        pool.target.submit(this);
    }

    /** Adds flag bits before the post: a batch defers all but its last request. */
    void addFlags(int bits) {
        flags |= bits;
    }

    @Override
    public Kind kind() {
        return kind;
    }

    @Override
    public int segmentCount() {
        return segmentCount;
    }

    @Override
    public ProviderRegion region(int index) {
        return providerRegions[index];
    }

    @Override
    public int offset(int index) {
        return offsets[index];
    }

    @Override
    public int segmentLength(int index) {
        return lengths[index];
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public long remoteAddress() {
        return remoteAddress;
    }

    @Override
    public int remoteToken() {
        return remoteToken;
    }

    @Override
    public int flags() {
        return flags;
    }

    @Override
    public ProviderWindow window() {
        return window;
    }

    @Override
    public WorkCompletion completion() {
        return this;
    }

    @Override
    public void arrivedOn(ConnectionEvents connection) {
        this.arrivedOn = (ConnectionImpl) connection;
        this.taken = true;
        pool.target.sharedReceiveLeft();
    }

    @Override
    public void windowBound(int token) {
        this.boundToken = token;
    }

    /** Reports success; a bind reports its window's token as the bytes ({@link WindowFuture} reads it so). */
    @Override
    public void completed(int bytes) {
        finish(kind == Kind.BIND_WINDOW ? boundToken : bytes, false, 0, null);
    }

    @Override
    public void completedWithInvalidate(int bytes, int token) {
        finish(bytes, true, token, null);
    }

    @Override
    public void failed(RdmaException error) {
        finish(0, false, 0, error);
    }

    private void finish(int bytes, boolean invalidated, int token, RdmaException error) {
        if (sharedCallback != null && !taken) {
            pool.target.sharedReceiveLeft(); // a shared queue's receive that no connection took
        }
        releaseRegions();
        OperationCounters counters = pool.target.counters();
        if (error == null) {
            counters.completed(kind, bytes);
        } else {
            counters.failed(error.status());
        }
        counters.runtime().finishTiming(submittedAt, kind, length, error);
        submittedAt = 0;
        waitingForSlot = false;
        if (holdsSlot) { // a waiter that never got one gives none back
            holdsSlot = false;
            pool.target.slots().release(kind); // before the callback, which may post into the freed slot
            if (pool.waiters != null) {
                pool.waiters.slotFreed(kind);
            }
        }
        this.bytes = bytes;
        this.invalidated = invalidated;
        this.invalidatedToken = token;
        this.error = error;
        completions.execute(deliver);
    }

    /** Calls the user's callback (on the poller, or the completion executor), then returns to the pool. */
    private void deliver() {
        CompletionCallback target = callback;
        SharedReceiveCallback sharedTarget = sharedCallback;
        ConnectionImpl source = arrivedOn;
        long ctx = context;
        RdmaException failure = error;
        int moved = bytes;
        boolean withInvalidate = invalidated;
        int token = invalidatedToken;
        clear();
        try {
            if (sharedTarget != null) {
                deliverShared(sharedTarget, source, ctx, failure, moved, withInvalidate, token);
            } else if (failure != null) {
                target.failed(ctx, failure);
            } else if (withInvalidate) {
                target.completedWithInvalidate(ctx, moved, token);
            } else {
                target.completed(ctx, moved);
            }
        } catch (Throwable t) {
            completions.record("completion callback", t);
        }
        pool.recycle(this);
    }

    private static void deliverShared(SharedReceiveCallback target, ConnectionImpl source, long ctx,
                                      RdmaException failure, int moved, boolean withInvalidate, int token) {
        if (failure != null) {
            target.failed(ctx, failure);
        } else if (withInvalidate) {
            target.receivedWithInvalidate(ctx, source, moved, token);
        } else {
            target.received(ctx, source, moved);
        }
    }

    private void clear() {
        window = null;
        callback = null;
        sharedCallback = null;
        arrivedOn = null;
        taken = false;
        error = null;
    }

    /**
     * The idle operations of one target. A connection's are confined to its poller thread: taken there when posting
     * from the poller (callbacks, application-driven runtimes), put back there after the callback. Any other thread
     * gets a fresh operation that is left to the garbage collector after use, as is a pooled one completed elsewhere
     * (a completion executor), so the pool needs no synchronization, and it never holds more operations than the
     * poller had in flight at once on this target (at most its queue depth): an idle connection keeps none it does
     * not use. A shared receive queue's receives are completed, and re-posted from their callbacks, on the poller of
     * whichever connection took them, so its pool is a lock-free ring that any thread takes from and returns to.
     */
    static final class Pool {
        private static final int MAX_IDLE = 4096;
        private final OperationTarget target;
        private final PollerProxy poller;
        private final ArrayDeque<CallbackOperation> idle = new ArrayDeque<>();
        /** A shared receive queue's idle operations, for any thread; null for a connection. */
        private final ManyToManyArrayQueue<CallbackOperation> idleAnyThread;
        /** The target's waiters under {@link dev.rdmafutures.Admission#waitForSlot}; null when posts never wait. */
        final SlotWaiters waiters;

        Pool(OperationTarget target, PollerProxy poller, SlotWaiters waiters) {
            this.target = target;
            this.poller = poller;
            this.waiters = waiters;
            this.idleAnyThread = target instanceof SharedReceiveQueueImpl queue
                    ? new ManyToManyArrayQueue<>(Math.max(2, Math.min(queue.depth(), MAX_IDLE))) : null;
        }

        CallbackOperation acquire() {
            if (idleAnyThread != null) {
                CallbackOperation op = idleAnyThread.poll();
                return op != null ? op : new CallbackOperation(this, true);
            }
            if (!poller.inPollerThread()) {
                return new CallbackOperation(this, false);
            }
            CallbackOperation op = idle.poll();
            return op != null ? op : new CallbackOperation(this, true);
        }

        void recycle(CallbackOperation op) {
            if (idleAnyThread != null) {
                idleAnyThread.offer(op); // a full ring leaves it to the garbage collector
            } else if (op.pooled && idle.size() < MAX_IDLE && poller.inPollerThread()) {
                idle.push(op);
            }
        }
    }
}
