package dev.rdmafutures.internal;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.WorkCompletion;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayDeque;

/**
 * One posted operation, holding a slot of its connection's {@link QueueSlots} from its post until its outcome is
 * reported, its outcome going to a {@link CompletionCallback} (the user's, or an
 * {@link OperationFuture}). Reusable: it is its own request, its own poller command (post the request) and its own
 * completion, and once the callback has returned it goes back to its connection's {@link Pool}, so a steady stream
 * of operations allocates nothing.
 */
final class CallbackOperation implements WorkRequest, WorkCompletion, Runnable {
    private final Pool pool;
    private final Completions completions;
    private final Runnable deliver = this::deliver;
    private MemoryRegionImpl region;
    private CompletionCallback callback;
    private long context;
    // The outcome, from the provider's report until the callback ran.
    private int bytes;
    private int invalidatedToken;
    private boolean invalidated;
    private RdmaException error;
    // The request, filled in by set() before each post.
    private Kind kind;
    private ProviderRegion local;
    private int localOffset;
    private int length;
    private long remoteAddress;
    private int remoteToken;
    private int flags;

    private CallbackOperation(Pool pool) {
        this.pool = pool;
        this.completions = pool.connection.completions();
    }

    void start(MemoryRegionImpl local, CompletionCallback callback, long context) {
        this.region = local;
        this.callback = callback;
        this.context = context;
        local.acquire();
    }

    /** The poller refused the command: undo {@link #start} and give the slot back; the caller reports the failure. */
    void abandon() {
        region.release();
        pool.connection.slots().release(kind);
        clear();
    }

    /** The poller command: hand the request to the provider. */
    @Override
    public void run() {
        ConnectionImpl connection = pool.connection;
        if (!connection.isConnected()) {
            // Accepted while the connection was up, but its end reached this poller first: flushed like every
            // request outstanding at the end (NDK), not refused as if it had been posted to a dead connection.
            failed(new RdmaException(Status.CANCELED, "the connection ended before the request was posted"));
            return;
        }
        connection.provider().post(this);
    }

    /** Fills the request in, before the operation is handed to the poller. */
    void set(Kind kind, ProviderRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
             int flags) {
        this.kind = kind;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.remoteAddress = remoteAddress;
        this.remoteToken = remoteToken;
        this.flags = flags;
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
    public ProviderRegion local() {
        return local;
    }

    @Override
    public int localOffset() {
        return localOffset;
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
    public WorkCompletion completion() {
        return this;
    }

    @Override
    public void completed(int bytes) {
        finish(bytes, false, 0, null);
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
        region.release();
        pool.connection.slots().release(kind); // before the callback, which may post into the freed slot
        this.bytes = bytes;
        this.invalidated = invalidated;
        this.invalidatedToken = token;
        this.error = error;
        completions.execute(deliver);
    }

    /** Calls the user's callback (on the poller, or the completion executor), then returns to the pool. */
    private void deliver() {
        CompletionCallback target = callback;
        long ctx = context;
        RdmaException failure = error;
        int moved = bytes;
        boolean withInvalidate = invalidated;
        int token = invalidatedToken;
        clear();
        try {
            if (failure != null) {
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

    private void clear() {
        region = null;
        callback = null;
        error = null;
    }

    /**
     * The idle operations of one connection, confined to its poller thread: taken there when posting from the
     * poller (callbacks, application-driven runtimes), put back there after the callback. Any other thread gets a
     * fresh operation, and one completed on a completion executor is left to the garbage collector, so the pool
     * needs no synchronization.
     */
    static final class Pool {
        private static final int MAX_IDLE = 4096;
        private final ConnectionImpl connection;
        private final PollerProxy poller;
        private final ArrayDeque<CallbackOperation> idle = new ArrayDeque<>();

        Pool(ConnectionImpl connection, PollerProxy poller) {
            this.connection = connection;
            this.poller = poller;
        }

        CallbackOperation acquire() {
            CallbackOperation op = poller.inPollerThread() ? idle.poll() : null;
            return op != null ? op : new CallbackOperation(this);
        }

        void recycle(CallbackOperation op) {
            if (idle.size() < MAX_IDLE && poller.inPollerThread()) {
                idle.push(op);
            }
        }
    }
}
