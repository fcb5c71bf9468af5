package dev.rdmafutures.internal;

import dev.rdmafutures.Admission;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.LocalBuffer;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RegionSlice;
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
 * them to the target's poller. Every check runs before anything is taken: an operation is refused whole (nothing
 * held, nothing posted) or posted whole. Each check either explains its refusal (a typed {@link RdmaException}, for
 * futures and batches) or only returns its {@link Status} (the callback forms, which must not allocate to refuse):
 * one code path, so both forms refuse alike. The remote side of a post is {@code remote} from {@code remoteOffset}
 * (READ, WRITE), none (SEND, RECEIVE: null), or for SEND_INVALIDATE the peer's token to invalidate, carried in
 * {@code remoteOffset} with a null {@code remote} so that the callback form builds nothing. Thread-safe.
 */
final class Posting {
    private static final int HOLDS_SLOT = 0;
    private static final int WAITS = 1;
    private static final int REFUSED = 2;
    private final RuntimeOwner runtime;
    /** The protection domain every local region posted here must belong to. */
    private final DomainImpl domain;
    private final PollerProxy poller;
    private final OperationTarget target;
    private final CallbackOperation.Pool pool;
    private final SlotWaiters waiters;
    private final Guard guard;

    /** The target's own check, after the arguments': whether it accepts operations now. */
    interface Guard {
        /**
         * {@link Status#SUCCESS} when {@code kind} can be posted to the target now; otherwise the refusal, thrown as
         * an {@link RdmaException} that says why when {@code explain}, returned without allocating when not.
         */
        Status check(WorkRequest.Kind kind, boolean explain);
    }

    /**
     * Posts to {@code target}; with {@code admission} waiting ({@link Admission#waitForSlot}), a post without a free
     * slot waits for one, except a batch's (see {@code mayWait}). Local regions must be of {@code domain}.
     */
    Posting(DomainImpl domain, PollerProxy poller, OperationTarget target, Admission admission, Guard guard) {
        this.runtime = domain.owner();
        this.domain = domain;
        this.poller = poller;
        this.target = target;
        this.waiters = admission.waits() ? new SlotWaiters(target, poller, admission) : null;
        this.pool = new CallbackOperation.Pool(target, poller, waiters);
        this.guard = guard;
    }

    /**
     * The refusal {@code status}: thrown with {@code message} when one was built (the caller explains), returned
     * otherwise. Callers build the message only when explaining: {@code refuse(S, explain ? "..." : null)}.
     */
    static Status refuse(Status status, String message) {
        if (message != null) {
            throw new RdmaException(status, message);
        }
        return status;
    }

    /**
     * A checked data-path operation holding its regions and its slot (or, when {@code mayWait} and the admission
     * waits, its place among the waiters), not yet started. Throws the refusal, explained.
     */
    CallbackOperation checked(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                              OperationFlags flags, boolean mayWait) {
        check(kind, local, remote, remoteOffset, flags, true);
        CallbackOperation op = admitted(kind, local, remote, remoteOffset, flags, mayWait);
        if (op == null) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, noSlot(kind, mayWait));
        }
        return op;
    }

    /** Hands a started operation to the poller; when the runtime closed, undoes it and throws. */
    void post(CallbackOperation op, String what) {
        if (!poller.post(op)) {
            op.abandon();
            throw PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, what);
        }
    }

    /**
     * The allocation-free post of a callback form: checks, takes, starts with {@code callback} and hands over; a
     * refusal is returned, nothing built.
     */
    Status postQuietly(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                       OperationFlags flags, CompletionCallback callback, long context) {
        Objects.requireNonNull(callback, "callback");
        Status refusal = check(kind, local, remote, remoteOffset, flags, false);
        if (refusal != Status.SUCCESS) {
            return refusal;
        }
        CallbackOperation op = admitted(kind, local, remote, remoteOffset, flags, true);
        if (op == null) {
            return Status.INSUFFICIENT_RESOURCES;
        }
        op.start(callback, context);
        return handOver(op);
    }

    /** {@link #postQuietly} for a shared receive queue's receive (which never waits for a slot). */
    Status postQuietly(LocalBuffer local, SharedReceiveCallback callback, long context) {
        Objects.requireNonNull(callback, "callback");
        Status refusal = check(WorkRequest.Kind.RECEIVE, local, null, 0, OperationFlags.NONE, false);
        if (refusal != Status.SUCCESS) {
            return refusal;
        }
        CallbackOperation op = admitted(WorkRequest.Kind.RECEIVE, local, null, 0, OperationFlags.NONE, false);
        if (op == null) {
            return Status.INSUFFICIENT_RESOURCES;
        }
        op.start(callback, context);
        return handOver(op);
    }

    private Status handOver(CallbackOperation op) {
        if (!poller.post(op)) {
            op.abandon();
            return Status.CONNECTION_INVALID;
        }
        return Status.SUCCESS;
    }

    /**
     * A checked request on {@code target}, a window or a fast-register slot, not yet started: BIND_WINDOW of
     * {@code length} bytes of {@code region} from {@code offset} (checked as a local slice) with {@code rights}
     * (BIND_REMOTE_* bits); FAST_REGISTER of {@code region}, the slot's prepared registration (whole, not valid
     * yet); INVALIDATE_WINDOW (no region). Throws the refusal.
     */
    CallbackOperation checkedWindow(WorkRequest.Kind kind, ProviderWindow target, MemoryRegion region, int offset,
                                    int length, int rights) {
        closedCheck(kind, true);
        if (kind == WorkRequest.Kind.BIND_WINDOW) {
            checkRegion(new RegionSlice(Objects.requireNonNull(region, "region"), offset, length).region(), false,
                    true);
        }
        guard.check(kind, true);
        int admission = admission(kind, true);
        if (admission == REFUSED) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, noSlot(kind, true));
        }
        CallbackOperation op = pool.acquire();
        op.set(kind, 0, 0, 0);
        if (kind == WorkRequest.Kind.BIND_WINDOW) {
            op.addSegment((MemoryRegionImpl) region, offset, length);
            op.addFlags(rights);
        } else if (kind == WorkRequest.Kind.FAST_REGISTER) {
            op.addSegment((MemoryRegionImpl) region, 0, length);
        }
        op.setWindow(target);
        enter(op, admission);
        return op;
    }

    /** Every check but the slot's: {@link Status#SUCCESS}, or the refusal (thrown when {@code explain}). */
    private Status check(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                         OperationFlags flags, boolean explain) {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(flags, "flags");
        Status refusal = closedCheck(kind, explain);
        if (refusal != Status.SUCCESS) {
            return refusal;
        }
        if (kind == WorkRequest.Kind.SEND_INVALIDATE && !runtime.adapterInfo().isRemoteInvalidateSupported()) {
            return refuse(Status.NOT_SUPPORTED, explain ? runtime.adapterInfo().deviceName() + " cannot invalidate a "
                    + "peer's region token remotely (AdapterInfo.isRemoteInvalidateSupported)" : null);
        }
        if (kind == WorkRequest.Kind.READ && flags.contains(OperationFlags.READ_FENCE)
                && !runtime.adapterInfo().isReadFenceOnReadSupported()) {
            return refuse(Status.NOT_SUPPORTED, explain ? runtime.adapterInfo().deviceName() + " cannot fence a READ "
                    + "(AdapterInfo.isReadFenceOnReadSupported); fence the operations after it instead" : null);
        }
        long length = length(local);
        if (remote != null && (remoteOffset < 0 || remoteOffset + length > remote.length())) {
            return refuse(Status.REMOTE_RESOURCES, explain ? "[" + remoteOffset + ", +" + length
                    + ") reaches beyond the remote buffer of " + remote.length() + " bytes" : null);
        }
        boolean placesData = kind == WorkRequest.Kind.READ || kind == WorkRequest.Kind.RECEIVE;
        if (local instanceof ScatterGatherList list) {
            int n = list.size();
            int max = target.slots().maxSegments(kind);
            if (n > max) {
                return refuse(Status.INVALID_PARAMETER, explain ? kind + " with " + n + " segments: at most " + max
                        + " were granted (QueueDepths.withMaxSge, AdapterInfo.max"
                        + (kind == WorkRequest.Kind.RECEIVE ? "Receive" : "Initiator") + "Sge)" : null);
            }
            for (int i = 0; i < n && refusal == Status.SUCCESS; i++) {
                refusal = checkRegion(list.region(i), placesData, explain);
            }
        } else {
            refusal = checkRegion(local instanceof RegionSlice slice ? slice.region() : (MemoryRegion) local,
                    placesData, explain);
        }
        return refusal != Status.SUCCESS ? refusal : guard.check(kind, explain);
    }

    private Status closedCheck(WorkRequest.Kind kind, boolean explain) {
        if (runtime.isClosed()) {
            // Before the arguments: the runtime's close deregistered the regions, which is not what went wrong.
            if (explain) {
                throw PollerProxy.runtimeClosed(Status.CONNECTION_INVALID, kind.name());
            }
            return Status.CONNECTION_INVALID;
        }
        return Status.SUCCESS;
    }

    /** A local region: this runtime's, of the target's domain, valid, and writable where data is placed in it. */
    private Status checkRegion(MemoryRegion local, boolean placesData, boolean explain) {
        // One comparison on the data path: a domain belongs to one runtime, so its own regions are this runtime's.
        if (!(local instanceof MemoryRegionImpl region) || region.domain() != domain) {
            return refuse(Status.ACCESS_VIOLATION, explain ? foreign(local) : null);
        }
        if (!region.isValid()) {
            return refuse(Status.ACCESS_VIOLATION, explain ? local + " is deregistered or invalidated" : null);
        }
        if (placesData && !region.allowsLocalWrite()) {
            return refuse(Status.ACCESS_VIOLATION, explain ? local + " lacks LOCAL_WRITE, which this operation "
                    + "needs to place data" : null);
        }
        return Status.SUCCESS;
    }

    /** Why {@code local}, not a region of this target's domain, is refused. */
    private String foreign(MemoryRegion local) {
        return local instanceof MemoryRegionImpl region && region.belongsTo(runtime)
                ? local + " belongs to " + region.domain() + ", not to " + domain + ", where this is posted"
                : local + " was not registered with this runtime";
    }

    /** The pooled operation of a checked post, its remote side, flags and segments set; no slot yet. */
    private CallbackOperation built(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                                    OperationFlags flags) {
        CallbackOperation op = pool.acquire();
        if (kind == WorkRequest.Kind.SEND_INVALIDATE) {
            op.set(kind, 0, (int) remoteOffset, flagBits(flags)); // the peer token to invalidate: no RemoteBuffer built
        } else {
            op.set(kind, remote == null ? 0 : remote.address() + remoteOffset, remote == null ? 0 : remote.token(),
                    flagBits(flags));
        }
        if (local instanceof ScatterGatherList list) {
            for (int i = 0, n = list.size(); i < n; i++) {
                op.addSegment((MemoryRegionImpl) list.region(i), list.offset(i), list.length(i));
            }
        } else if (local instanceof RegionSlice slice) {
            op.addSegment((MemoryRegionImpl) slice.region(), slice.offset(), slice.length());
        } else {
            MemoryRegionImpl region = (MemoryRegionImpl) local;
            op.addSegment(region, 0, region.length());
        }
        return op;
    }

    /**
     * The operation of a checked post, built once it has its slot (or, when {@code mayWait} and the admission waits,
     * its place among the waiters); null when there is neither, nothing taken or built.
     */
    private CallbackOperation admitted(WorkRequest.Kind kind, LocalBuffer local, RemoteBuffer remote,
                                       long remoteOffset, OperationFlags flags, boolean mayWait) {
        int admission = admission(kind, mayWait);
        if (admission == REFUSED) {
            return null;
        }
        CallbackOperation op = built(kind, local, remote, remoteOffset, flags);
        enter(op, admission);
        return op;
    }

    /**
     * The last step, taken only when everything else passed: a free slot ({@link #HOLDS_SLOT}); without one, or
     * behind others waiting (arrival order), a place among the waiters for an operation that may wait
     * ({@link #WAITS}); otherwise {@link #REFUSED}.
     */
    private int admission(WorkRequest.Kind kind, boolean mayWait) {
        boolean waits = mayWait && waiters != null;
        if ((!waits || !waiters.anyWaiting(kind)) && target.slots().tryTake(kind)) {
            return HOLDS_SLOT;
        }
        return waits && waiters.tryReserve(kind) ? WAITS : REFUSED;
    }

    private void enter(CallbackOperation op, int admission) {
        if (admission == HOLDS_SLOT) {
            op.holdSlot();
        } else {
            op.awaitSlot(waiters.deadline());
        }
    }

    private String noSlot(WorkRequest.Kind kind, boolean mayWait) {
        return mayWait && waiters != null ? waiters.fullMessage(kind) : target.slots().refusalMessage(kind);
    }

    static long length(LocalBuffer local) {
        if (local instanceof ScatterGatherList list) {
            return list.totalLength();
        }
        return local instanceof RegionSlice slice ? slice.length() : ((MemoryRegion) local).length();
    }

    static int flagBits(OperationFlags flags) {
        return (flags.contains(OperationFlags.SILENT_SUCCESS) ? WorkRequest.SILENT_SUCCESS : 0)
                | (flags.contains(OperationFlags.READ_FENCE) ? WorkRequest.READ_FENCE : 0)
                | (flags.contains(OperationFlags.RDMA_READ_LOCAL_INVALIDATE) ? WorkRequest.LOCAL_INVALIDATE : 0)
                | (flags.contains(OperationFlags.DEFER) ? WorkRequest.DEFER : 0);
    }
}
