package dev.rdmafutures.internal;

import dev.rdmafutures.Admission;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlag;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkRequest;
import java.util.Objects;

/**
 * Turns the API's data-path calls on one {@link OperationTarget} into validated {@link CallbackOperation}s and hands
 * them to the target's poller. Every check runs before anything is taken: an operation is refused whole (a typed
 * {@link RdmaException}, nothing held, nothing posted) or posted whole. Thread-safe.
 */
final class Posting {
    private static final OperationFlag[] NO_FLAGS = {};
    private final RuntimeOwner runtime;
    private final PollerProxy poller;
    private final OperationTarget target;
    private final CallbackOperation.Pool pool;
    private final SlotWaiters waiters;
    private final Guard guard;

    /** The target's own check, after the arguments': whether it accepts operations now. */
    interface Guard {
        /** Throws the typed refusal when {@code kind} cannot be posted to the target now. */
        void check(WorkRequest.Kind kind);
    }

    /**
     * Posts to {@code target}; with {@code admission} waiting ({@link Admission#waitForSlot}), a post without a free
     * slot waits for one, except a batch's (see {@code mayWait}).
     */
    Posting(RuntimeOwner runtime, PollerProxy poller, OperationTarget target, Admission admission, Guard guard) {
        this.runtime = runtime;
        this.poller = poller;
        this.target = target;
        this.waiters = admission.waits() ? new SlotWaiters(target, poller, admission) : null;
        this.pool = new CallbackOperation.Pool(target, poller, waiters);
        this.guard = guard;
    }

    /**
     * A validated one-buffer operation reporting to {@code callback}, holding its region and its slot (or, when
     * {@code mayWait} and the admission waits, its place among the waiters).
     */
    CallbackOperation started(WorkRequest.Kind kind, MemoryRegion local, int offset, int length, RemoteBuffer remote,
                              long remoteOffset, OperationFlag[] flags, CompletionCallback callback, long context,
                              boolean mayWait) {
        Objects.requireNonNull(callback, "callback");
        CallbackOperation op = prepared(kind, length, remote, remoteOffset, flags);
        try {
            op.addSegment(DataPath.local(runtime, local, offset, length, placesData(kind)), offset, length);
            finishChecks(op, kind, mayWait);
        } catch (RdmaException e) {
            discard(op);
            throw e;
        }
        op.start(callback, context);
        return op;
    }

    /** A validated scatter-gather operation reporting to {@code callback}; the segments are copied. */
    CallbackOperation started(WorkRequest.Kind kind, ScatterGatherList local, RemoteBuffer remote, long remoteOffset,
                              OperationFlag[] flags, CompletionCallback callback, long context, boolean mayWait) {
        Objects.requireNonNull(callback, "callback");
        CallbackOperation op = segmented(kind, local, remote, remoteOffset, flags, mayWait);
        op.start(callback, context);
        return op;
    }

    /** A validated receive of a shared receive queue reporting to {@code callback}. */
    CallbackOperation startedShared(ScatterGatherList local, MemoryRegion region, int offset, int length,
                                    SharedReceiveCallback callback, long context) {
        Objects.requireNonNull(callback, "callback");
        CallbackOperation op;
        if (local != null) {
            op = segmented(WorkRequest.Kind.RECEIVE, local, null, 0, NO_FLAGS, false);
        } else {
            op = prepared(WorkRequest.Kind.RECEIVE, length, null, 0, NO_FLAGS);
            try {
                op.addSegment(DataPath.local(runtime, region, offset, length, true), offset, length);
                finishChecks(op, WorkRequest.Kind.RECEIVE, false);
            } catch (RdmaException e) {
                discard(op);
                throw e;
            }
        }
        op.start(callback, context);
        return op;
    }

    /**
     * A validated request on {@code target}, a window or a fast-register slot, reporting to {@code callback}:
     * BIND_WINDOW of {@code length} bytes of {@code region} from {@code offset} (checked as a local segment) with
     * {@code rights} (BIND_REMOTE_* bits); FAST_REGISTER of {@code region}, the slot's prepared registration (whole,
     * not valid yet); INVALIDATE_WINDOW (no region).
     */
    CallbackOperation startedWindow(WorkRequest.Kind kind, ProviderWindow target, MemoryRegion region, int offset,
                                    int length, int rights, CompletionCallback callback) {
        CallbackOperation op = prepared(kind, length, null, 0, NO_FLAGS);
        try {
            if (kind == WorkRequest.Kind.BIND_WINDOW) {
                op.addSegment(DataPath.local(runtime, region, offset, length, false), offset, length);
                op.addFlags(rights);
            } else if (kind == WorkRequest.Kind.FAST_REGISTER) {
                op.addSegment((MemoryRegionImpl) region, 0, length);
            }
            op.setWindow(target);
            finishChecks(op, kind, true);
        } catch (RdmaException e) {
            discard(op);
            throw e;
        }
        op.start(callback, 0);
        return op;
    }

    /** Hands a started operation to the poller; when the runtime closed, undoes it and throws. */
    void post(CallbackOperation op, String what) {
        if (!poller.post(op)) {
            op.abandon();
            throw PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, what);
        }
    }

    private CallbackOperation segmented(WorkRequest.Kind kind, ScatterGatherList local, RemoteBuffer remote,
                                        long remoteOffset, OperationFlag[] flags, boolean mayWait) {
        Objects.requireNonNull(local, "local");
        CallbackOperation op = prepared(kind, local.totalLength(), remote, remoteOffset, flags);
        try {
            int n = local.size();
            int max = target.slots().maxSegments(kind);
            if (n > max) {
                throw new RdmaException(Status.INVALID_PARAMETER, kind + " with " + n + " segments: at most " + max
                        + " were granted (QueueDepths.withMaxSge, AdapterInfo.max" + (kind == WorkRequest.Kind.RECEIVE
                        ? "Receive" : "Initiator") + "Sge)");
            }
            boolean placesData = placesData(kind);
            for (int i = 0; i < n; i++) {
                int offset = local.offset(i);
                int length = local.length(i);
                op.addSegment(DataPath.local(runtime, local.region(i), offset, length, placesData), offset, length);
            }
            finishChecks(op, kind, mayWait);
        } catch (RdmaException e) {
            discard(op);
            throw e;
        }
        return op;
    }

    /** A pooled operation with the kind, remote side and flags checked and set; no segments yet. */
    private CallbackOperation prepared(WorkRequest.Kind kind, int length, RemoteBuffer remote, long remoteOffset,
                                       OperationFlag[] flags) {
        if (runtime.isClosed()) {
            // Before the arguments: the runtime's close deregistered the regions, which is not what went wrong.
            throw PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, kind.name());
        }
        int flagBits = DataPath.flagBits(flags); // a null array is the caller's mistake, as a null flag is
        long remoteAddress = 0;
        int remoteToken = 0;
        if (remote != null) {
            if (kind != WorkRequest.Kind.SEND_INVALIDATE
                    && (remoteOffset < 0 || remoteOffset + length > remote.length())) {
                throw new RdmaException(Status.REMOTE_RESOURCES, "[" + remoteOffset + ", +" + length
                        + ") reaches beyond the remote buffer of " + remote.length() + " bytes");
            }
            remoteAddress = remote.address() + remoteOffset;
            remoteToken = remote.token();
        }
        CallbackOperation op = pool.acquire();
        op.set(kind, remoteAddress, remoteToken, flagBits);
        return op;
    }

    /**
     * The target's state, then a slot: the last checks, the slot taken only when everything else passed. Without a
     * free slot, or behind others waiting (arrival order), an operation that may wait reserves a place among the
     * waiters instead; otherwise it is refused.
     */
    private void finishChecks(CallbackOperation op, WorkRequest.Kind kind, boolean mayWait) {
        guard.check(kind);
        boolean waits = mayWait && waiters != null;
        if ((!waits || !waiters.anyWaiting(kind)) && target.slots().tryTake(kind)) {
            op.holdSlot();
        } else if (waits) {
            op.awaitSlot(waiters.reserve(kind));
        } else {
            throw target.slots().refusal(kind);
        }
    }

    private void discard(CallbackOperation op) {
        op.forgetSegments();
        pool.recycle(op);
    }

    private static boolean placesData(WorkRequest.Kind kind) {
        return kind == WorkRequest.Kind.READ || kind == WorkRequest.Kind.RECEIVE;
    }
}
