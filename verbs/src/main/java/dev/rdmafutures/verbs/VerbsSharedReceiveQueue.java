package dev.rdmafutures.verbs;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.providerkit.ManyToManyArrayQueue;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.SharedReceiveSlots.Slot;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code ibv_srq} shared by QPs on any poller, posted to and taken from without a lock. A posted receive holds a
 * slot of the queue's {@link SharedReceiveSlots} table, and its work-request id names the slot: whichever QP the
 * device gives the receive to reports it on its loop's CQ, on its own poller, and {@link #take} hands the request
 * back. Receives not yet on the device wait in a lock-free ring ({@link ManyToManyArrayQueue}). Nothing is allocated
 * per receive.
 *
 * <p>A receive posted on a poller is listed with that poller's loop, which posts it in its duty cycle's flush, ahead of
 * the loop's sends ({@link PendingPosts}), with one {@code ibv_post_srq_recv} for every receive waiting then, whichever
 * poller added it; a receive posted on another thread is posted at once. That native post is the one step under this
 * queue's lock, once per flush, not per receive: a flush that finds another thread's post under way waits for it, so
 * every receive a poller posted is on the device before that poller's next sends, whoever took it from the ring.
 *
 * <p>The limit ({@code srq_limit}) is armed on the device, which raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} as soon as
 * fewer receives than it remain; {@link DeviceEvents} routes that here and the limit is reported at once, with the
 * posted count this queue knows (receives the device has taken but whose completions are not yet polled are still
 * counted) capped below the threshold, which the device has just said is true. Should the event not come, the
 * completion that brings the count below the threshold reports it. Either way once per arming.
 *
 * <p>Closing fails the posted receives with CANCELED and destroys the queue after its last QP; no native call reaches
 * a destroyed queue. A QP that ends takes none of the other receives with it: the device returns only the one it was
 * filling, failed, on that QP's CQ.
 */
final class VerbsSharedReceiveQueue implements ProviderSharedReceiveQueue {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsSharedReceiveQueue.class);
    /** Spins on a receive another thread is publishing before each yield (see {@link #nextWaiting}). */
    private static final int SPINS_BEFORE_YIELD = 64;

    private final VerbsDevice device;
    private final VerbsDomain domain;
    private final long handle;
    private final int depth;
    private final SharedReceiveSlots slots;
    /** Slots whose receives wait for a native post, in posting order. */
    private final ManyToManyArrayQueue<Slot> waiting;
    private final SharedReceiveQueueEvents events;
    /** The chain of one native post. Guarded by this. */
    private final ReceiveList chain;
    /** The armed limit: a count below it is reported; 0 when none is armed. */
    private final AtomicInteger armedLimit = new AtomicInteger();
    private volatile boolean closed;
    /** Each loop's listing of this queue, replaced whole when a loop first posts here. */
    private volatile LoopListing[] listings = new LoopListing[0];
    /** QPs that take their receives from here. Guarded by this, as is {@link #destroyed}. */
    private int queuePairs;
    private boolean destroyed;

    VerbsSharedReceiveQueue(VerbsDevice device, VerbsDomain domain, long handle, int depth, int maxSge,
                            SharedReceiveQueueEvents events) {
        this.device = device;
        this.domain = domain;
        this.handle = handle;
        this.depth = depth;
        this.events = events;
        this.slots = new SharedReceiveSlots(depth);
        this.waiting = new ManyToManyArrayQueue<>(Math.max(2, depth));
        this.chain = new ReceiveList(depth, maxSge, domain.emptySink());
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
        if (closed) {
            receive.completion().failed(new RdmaException(Status.CANCELED, this + " was closed"));
            return;
        }
        Slot slot = slots.claim(receive);
        if (slot == null) {
            receive.completion().failed(new RdmaException(Status.INSUFFICIENT_RESOURCES, this + " has " + depth
                    + " receives posted already"));
            return;
        }
        waiting.offer(slot); // never refused while open: no more slots are held than it has room for
        if (closed) {
            // Closed meanwhile: the close's sweep of the table may have missed this slot; whoever empties it fails it.
            WorkRequest mine = slots.retire(slot);
            if (mine != null) {
                mine.completion().failed(new RdmaException(Status.CANCELED, this + " was closed"));
            }
            return;
        }
        VerbsEventLoop loop = device.loopOnThisThread();
        if (loop != null) {
            listingFor(loop).list();
        } else {
            postWaiting();
        }
    }

    /**
     * Posts the receives waiting so far, whichever poller added them, with one {@code ibv_post_srq_recv}, after any
     * post another thread has under way; fails those the device refused. Returns how many it handed to the device.
     */
    int postWaiting() {
        int count;
        int rc;
        synchronized (this) {
            if (waiting.size() == 0 || closed) {
                return 0; // a close failed the waiting receives
            }
            Slot slot;
            while ((slot = nextWaiting()) != null) {
                WorkRequest receive = slot.receive();
                if (receive != null) { // else a close failed it
                    chain.write(receive, VerbsQueuePair.RECEIVE_ID | slot.index);
                }
            }
            count = chain.size();
            rc = count > 0 ? NativeVerbs.postSrqRecv(handle, chain.address(), chain.badIndexAddress()) : 0;
            if (rc < 0) {
                failRefused(chain.badIndex(), count, -rc);
            }
            chain.clear();
        }
        return count;
    }

    /**
     * The oldest waiting slot, or null when none waits. A post between its claim in the ring and its publication is
     * waited for: receives published behind it, perhaps by this loop before a Send, go with this post.
     */
    private Slot nextWaiting() {
        for (int spins = 0; ; spins++) {
            Slot slot = waiting.poll();
            if (slot != null || waiting.size() == 0) {
                return slot;
            }
            if (spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield(); // the publisher may be an application thread the scheduler took off its core
            }
        }
    }

    /** Frees the slots of chained receives {@code from} to {@code to}, which the device refused, and fails them. */
    private void failRefused(int from, int to, int errno) {
        for (int i = from; i < to; i++) {
            WorkRequest receive = slots.release(slots.slot((int) chain.wrId(i)));
            if (receive != null) {
                receive.completion().failed(i == from ? VerbsErrors.postFailed("ibv_post_srq_recv", errno, 0)
                        : VerbsErrors.notPosted("ibv_post_srq_recv", errno));
            }
        }
    }

    /**
     * The receive in {@code slot}, which a QP's completion names, taken out of the table; null when the queue was
     * closed and failed it already. Reports the limit when this brings the count below an armed threshold.
     */
    WorkRequest take(int slot) {
        Slot named = slots.slot(slot);
        WorkRequest receive = named != null ? slots.release(named) : null;
        if (receive == null) {
            return null;
        }
        int left = slots.held();
        int limit = armedLimit.get();
        if (left < limit && armedLimit.compareAndSet(limit, 0)) {
            events.onLimitReached(left);
        }
        return receive;
    }

    /** Posts the waiting receives first, so that the device counts what this queue counts. */
    @Override
    public void armLimit(int limit) {
        postWaiting();
        synchronized (this) { // against a close destroying the queue under the native call
            if (closed) {
                return;
            }
            armedLimit.set(limit);
            // A take that brought the count below the limit before it was armed did not report it: report it here.
            int now = slots.held();
            if (now < limit && armedLimit.compareAndSet(limit, 0)) {
                NativeVerbs.modifySrqLimit(handle, 0); // an earlier arming's, if any
                events.onLimitReached(now);
                return;
            }
            int rc = NativeVerbs.modifySrqLimit(handle, limit);
            if (rc < 0) {
                LOG.warn("{}: arming the device's limit failed (errno {}); the completions report it instead", this,
                        -rc);
            }
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
        int limit = armedLimit.get();
        if (limit > 0 && armedLimit.compareAndSet(limit, 0)) { // else reported already, by a completion
            events.onLimitReached(Math.min(slots.held(), limit - 1));
        }
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
        synchronized (this) {
            queuePairs--;
        }
        destroyIfDone();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        armedLimit.set(0);
        // Retired, not freed: the device may still hold these receives and name their slots in a completion.
        RdmaException canceled = new RdmaException(Status.CANCELED, "the shared receive queue was closed");
        for (int i = 0; i < depth; i++) {
            WorkRequest receive = slots.retire(slots.slot(i));
            if (receive != null) {
                receive.completion().failed(canceled);
            }
        }
        destroyIfDone();
    }

    /** Destroys the queue once it is closed and no QP takes from it; once. */
    private void destroyIfDone() {
        synchronized (this) { // held across the native call: no post or arming runs into it
            if (destroyed || !closed || queuePairs > 0) {
                return;
            }
            destroyed = true;
            DeviceEvents.unwatch(this);
            int rc = NativeVerbs.destroySrq(handle);
            if (rc < 0) {
                LOG.warn("{}: ibv_destroy_srq failed (errno {})", this, -rc);
            }
        }
        domain.letGo();
    }

    /** {@code loop}'s listing of this queue, made the first time it posts here. */
    private LoopListing listingFor(VerbsEventLoop loop) {
        for (LoopListing listing : listings) {
            if (listing.loop == loop) {
                return listing;
            }
        }
        synchronized (this) { // once per loop
            for (LoopListing listing : listings) {
                if (listing.loop == loop) {
                    return listing;
                }
            }
            LoopListing made = new LoopListing(loop);
            LoopListing[] grown = Arrays.copyOf(listings, listings.length + 1);
            grown[grown.length - 1] = made;
            listings = grown;
            return made;
        }
    }

    @Override
    public String toString() {
        return "VerbsSharedReceiveQueue[" + device.adapterInfo().deviceName() + ", depth " + depth + "]";
    }

    /**
     * This queue as one loop lists it for its flush: listed once per duty cycle by the loop's own thread, like a queue
     * pair's chains, so that every loop that posted a receive posts it before its own sends.
     */
    private final class LoopListing implements PendingPosts {
        private final VerbsEventLoop loop;
        /** Confined to the loop's thread. */
        private boolean listed;

        LoopListing(VerbsEventLoop loop) {
            this.loop = loop;
        }

        void list() {
            if (!listed) {
                listed = true;
                loop.postLater(this);
            }
        }

        @Override
        public int postPendingReceives() {
            listed = false;
            return postWaiting();
        }

        /** A shared receive queue has no send queue: its receives left in the first phase. */
        @Override
        public int postPendingSends() {
            return 0;
        }
    }
}
