package dev.rdmafutures.verbs;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code ibv_srq} shared by QPs on any poller. A posted receive takes a slot of a table owned here, and its
 * work-request id names the slot: whichever QP the device gives the receive to reports it on its loop's CQ, on its
 * own poller, and {@link #take} hands the request back, so the table is guarded by this object's lock and nothing is
 * allocated per receive. Receives posted on a poller join one chain, which that poller's loop posts with one
 * {@code ibv_post_srq_recv} in its duty cycle's flush ({@link #postPendingReceives()}), ahead of the loop's sends, with
 * whatever other pollers added meanwhile; a receive posted on another thread is posted at once.
 *
 * <p>The limit ({@code srq_limit}) is armed on the device, which raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} as soon as
 * fewer receives than it remain; {@link DeviceEvents} routes that here and the limit is reported at once, with the
 * posted count this queue knows (receives the device has taken but whose completions are not yet polled are still
 * counted) capped below the threshold, which the device has just said is true. Should the event not come, the
 * completion that brings the count below the threshold reports it. Either way once per arming.
 *
 * <p>Closing fails the posted receives with CANCELED and destroys the queue after its last QP. A QP that ends takes
 * none of the other receives with it: the device returns only the one it was filling, failed, on that QP's CQ.
 */
final class VerbsSharedReceiveQueue implements ProviderSharedReceiveQueue, PendingPosts {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsSharedReceiveQueue.class);

    private final VerbsDevice device;
    private final VerbsDomain domain;
    private final long handle;
    private final int depth;
    private final SharedReceiveQueueEvents events;
    private final ReceiveList list;
    private final WorkRequest[] slots;
    private final int[] free;
    private int freeCount;
    private int posted;
    private int threshold;
    private boolean armed;
    private int queuePairs;
    /** The chain is listed with a loop for its flush. Guarded by this. */
    private boolean listed;
    private boolean closed;
    private boolean destroyed;

    VerbsSharedReceiveQueue(VerbsDevice device, VerbsDomain domain, long handle, int depth, int maxSge,
                            SharedReceiveQueueEvents events) {
        this.device = device;
        this.domain = domain;
        this.handle = handle;
        this.depth = depth;
        this.events = events;
        this.list = new ReceiveList(depth, maxSge, domain.emptySink());
        this.slots = new WorkRequest[depth];
        this.free = new int[depth];
        for (int i = 0; i < depth; i++) {
            free[i] = depth - 1 - i;
        }
        this.freeCount = depth;
    }

    /** The {@code struct ibv_srq *}. */
    long handle() {
        return handle;
    }

    /** How many receives may be posted at once. */
    int depth() {
        return depth;
    }

    @Override
    public void post(WorkRequest receive) {
        RdmaException refused;
        boolean listNow = false;
        synchronized (this) {
            refused = closed ? new RdmaException(Status.CANCELED, this + " was closed") : null;
            if (refused == null && freeCount == 0) {
                refused = new RdmaException(Status.INSUFFICIENT_RESOURCES, this + " has " + depth
                        + " receives posted already");
            }
            if (refused == null) {
                int slot = free[--freeCount];
                list.write(receive, VerbsQueuePair.RECEIVE_ID | slot);
                slots[slot] = receive;
                posted++;
                listNow = !listed;
                listed = true;
            }
        }
        if (refused != null) {
            receive.completion().failed(refused);
        } else if (listNow) {
            VerbsEventLoop loop = device.loopOnThisThread();
            if (loop != null) {
                loop.postLater(this);
            } else {
                postPendingReceives();
            }
        }
    }

    /**
     * Posts the receives chained so far, whichever poller added them, with one {@code ibv_post_srq_recv}; fails
     * those the device refused.
     */
    @Override
    public int postPendingReceives() {
        WorkRequest[] refused;
        int errno;
        int count;
        synchronized (this) {
            listed = false;
            count = list.size();
            if (count == 0) {
                return 0;
            }
            int rc = NativeVerbs.postSrqRecv(handle, list.address(), list.badIndexAddress());
            errno = -rc;
            refused = rc < 0 ? takeRefused(list.badIndex(), count) : null;
            list.clear();
        }
        for (int i = 0; refused != null && i < refused.length; i++) {
            refused[i].completion().failed(i == 0 ? VerbsErrors.postFailed("ibv_post_srq_recv", errno, 0)
                    : VerbsErrors.notPosted("ibv_post_srq_recv", errno));
        }
        return count;
    }

    /** A shared receive queue has no send queue: its receives left in the first phase. */
    @Override
    public int postPendingSends() {
        return 0;
    }

    /** Frees the slots of chained receives {@code from} to {@code to}, which the device refused; returns them. */
    private WorkRequest[] takeRefused(int from, int to) {
        WorkRequest[] refused = new WorkRequest[to - from];
        for (int i = from; i < to; i++) {
            int slot = (int) list.wrId(i);
            refused[i - from] = slots[slot];
            slots[slot] = null;
            free[freeCount++] = slot;
            posted--;
        }
        return refused;
    }

    /**
     * The receive in {@code slot}, which a QP's completion names, taken out of the table; null when the queue was
     * closed and failed it already. Reports the limit when this brings the count below an armed threshold.
     */
    WorkRequest take(int slot) {
        WorkRequest receive;
        int reached = -1;
        synchronized (this) {
            receive = slot >= 0 && slot < slots.length ? slots[slot] : null;
            if (receive == null) {
                return null;
            }
            slots[slot] = null;
            free[freeCount++] = slot;
            posted--;
            if (armed && posted < threshold) {
                armed = false;
                reached = posted;
            }
        }
        if (reached >= 0) {
            events.onLimitReached(reached);
        }
        return receive;
    }

    /** Posts the chained receives first, so that the device counts what this queue counts. */
    @Override
    public void armLimit(int limit) {
        postPendingReceives();
        int reached = -1;
        synchronized (this) {
            if (closed) {
                return;
            }
            threshold = limit;
            armed = posted >= limit;
            if (!armed) {
                reached = posted;
            }
        }
        if (reached >= 0) {
            NativeVerbs.modifySrqLimit(handle, 0); // an earlier arming's, if any
            events.onLimitReached(reached);
            return;
        }
        int rc = NativeVerbs.modifySrqLimit(handle, limit);
        if (rc < 0) {
            LOG.warn("{}: arming the device's limit failed (errno {}); the completions report it instead", this, -rc);
        }
    }

    /**
     * An asynchronous event naming this queue, read by any loop on the device context: the device's limit was
     * reached (reported on a poller of this queue's runtime), or the queue failed.
     */
    void onDeviceEvent(AsyncEvent event) {
        if (event.type() != AsyncEvent.SRQ_LIMIT_REACHED) {
            LOG.warn("{}: {}", this, event);
        } else if (!device.runOnPoller(this::onLimitEvent)) {
            LOG.debug("{}: {} after the runtime closed", this, event);
        }
    }

    private void onLimitEvent() {
        int reached;
        synchronized (this) {
            if (!armed) {
                return; // reported already, by a completion
            }
            armed = false;
            reached = Math.min(posted, threshold - 1);
        }
        events.onLimitReached(reached);
    }

    /** A QP takes its receives from here from now on; false once the queue is closed. */
    synchronized boolean attach() {
        if (closed) {
            return false;
        }
        queuePairs++;
        return true;
    }

    /** A QP that took its receives from here was destroyed; the last one out destroys a closed queue. */
    void detach() {
        boolean destroy;
        synchronized (this) {
            queuePairs--;
            destroy = closed && queuePairs == 0;
        }
        if (destroy) {
            destroy();
        }
    }

    @Override
    public void close() {
        WorkRequest[] failed;
        boolean destroy;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            armed = false;
            list.clear(); // its receives are among those failed below
            failed = new WorkRequest[posted];
            int n = 0;
            for (int i = 0; i < slots.length; i++) {
                if (slots[i] != null) {
                    failed[n++] = slots[i];
                    slots[i] = null;
                }
            }
            posted = 0;
            destroy = queuePairs == 0;
        }
        if (destroy) {
            destroy();
        }
        RdmaException canceled = new RdmaException(Status.CANCELED, "the shared receive queue was closed");
        for (WorkRequest receive : failed) {
            receive.completion().failed(canceled);
        }
    }

    private void destroy() {
        synchronized (this) {
            if (destroyed) {
                return;
            }
            destroyed = true;
        }
        DeviceEvents.unwatch(this);
        int rc = NativeVerbs.destroySrq(handle);
        if (rc < 0) {
            LOG.warn("{}: ibv_destroy_srq failed (errno {})", this, -rc);
        }
        domain.letGo();
    }

    @Override
    public String toString() {
        return "VerbsSharedReceiveQueue[" + device.adapterInfo().deviceName() + ", depth " + depth + "]";
    }
}
