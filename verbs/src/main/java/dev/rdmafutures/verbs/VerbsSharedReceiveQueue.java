package dev.rdmafutures.verbs;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.providerkit.ManyToManyArrayQueue;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.SharedReceiveSlots.Slot;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code ibv_srq} shared by QPs on any poller, posted and taken from without a lock. A posted receive holds a slot
 * of the queue's {@link SharedReceiveSlots} table, and its work-request id names the slot: whichever QP the device
 * gives the receive to reports it on its loop's CQ, on its own poller, and {@link #take} hands the request back.
 * Receives not yet on the device wait in a lock-free ring ({@link ManyToManyArrayQueue}). Nothing is allocated per
 * receive.
 *
 * <p>A receive posted on a poller is listed with that poller's loop, which posts it in its duty cycle's flush, ahead of
 * the loop's sends ({@link PendingPosts}), with one {@code ibv_post_srq_recv} for every receive waiting then, whichever
 * poller added it; a receive posted on another thread is posted at once. The native chain a post writes is one of a
 * few kept here, taken by whichever thread posts: {@code ibv_post_srq_recv} may be called from several threads at once.
 *
 * <p>The limit ({@code srq_limit}) is armed on the device, which raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} as soon as
 * fewer receives than it remain; {@link DeviceEvents} routes that here and the limit is reported at once, with the
 * posted count this queue knows (receives the device has taken but whose completions are not yet polled are still
 * counted) capped below the threshold, which the device has just said is true. Should the event not come, the
 * completion that brings the count below the threshold reports it. Either way once per arming.
 *
 * <p>Closing fails the posted receives with CANCELED and destroys the queue after its last QP, and after any post
 * under way: a post never reaches a destroyed queue. A QP that ends takes none of the other receives with it: the
 * device returns only the one it was filling, failed, on that QP's CQ.
 */
final class VerbsSharedReceiveQueue implements ProviderSharedReceiveQueue {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsSharedReceiveQueue.class);
    /** The bit of {@link #posting} that says the queue is closed; the bits below count the native posts under way. */
    private static final int CLOSED = Integer.MIN_VALUE;
    /** Native chains kept for posts; a post that finds none makes one, and one given back to a full pool is dropped. */
    private static final int SPARE_CHAINS = 4;
    private static final VarHandle ARMED;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(VerbsSharedReceiveQueue.class, "armed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final VerbsDevice device;
    private final VerbsDomain domain;
    private final long handle;
    private final int depth;
    private final int maxSge;
    private final SharedReceiveQueueEvents events;
    private final SharedReceiveSlots slots;
    /** Slots whose receives wait for a native post, in posting order. */
    private final ManyToManyArrayQueue<Slot> waiting;
    private final ManyToManyArrayQueue<ReceiveList> spareChains = new ManyToManyArrayQueue<>(SPARE_CHAINS);
    /** {@link #CLOSED}, plus how many native posts are under way: the queue is destroyed when both allow it. */
    private final AtomicInteger posting = new AtomicInteger();
    private volatile int threshold;
    @SuppressWarnings("unused") // through ARMED
    private volatile boolean armed;
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
        this.maxSge = maxSge;
        this.events = events;
        this.slots = new SharedReceiveSlots(depth);
        this.waiting = new ManyToManyArrayQueue<>(Math.max(2, depth));
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
        if (posting.get() < 0) {
            receive.completion().failed(new RdmaException(Status.CANCELED, this + " was closed"));
            return;
        }
        Slot slot = slots.claim(receive);
        if (slot == null) {
            receive.completion().failed(new RdmaException(Status.INSUFFICIENT_RESOURCES, this + " has " + depth
                    + " receives posted already"));
            return;
        }
        waiting.offer(slot); // never refused: no more slots are held than it has room for
        if (posting.get() < 0) {
            // Closed meanwhile: the close's sweep of the table may have missed this slot; whoever empties it fails it.
            WorkRequest mine = slots.release(slot);
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
     * Posts the receives waiting so far, whichever poller added them, with one {@code ibv_post_srq_recv}; fails those
     * the device refused. Returns how many it handed to the device.
     */
    int postWaiting() {
        if (waiting.size() == 0) {
            return 0;
        }
        if (posting.getAndIncrement() < 0) {
            leavePost(); // closed: the close failed the waiting receives
            return 0;
        }
        try {
            ReceiveList chain = spareChains.poll();
            if (chain == null) {
                chain = new ReceiveList(depth, maxSge, domain.emptySink());
            }
            Slot slot;
            while (chain.size() < depth && (slot = nextWaiting()) != null) {
                WorkRequest receive = slot.receive();
                if (receive != null) { // else a close failed it
                    chain.write(receive, VerbsQueuePair.RECEIVE_ID | slot.index);
                }
            }
            int count = chain.size();
            if (count > 0) {
                int rc = NativeVerbs.postSrqRecv(handle, chain.address(), chain.badIndexAddress());
                if (rc < 0) {
                    failRefused(chain, chain.badIndex(), count, -rc);
                }
            }
            chain.clear();
            spareChains.offer(chain);
            return count;
        } finally {
            leavePost();
        }
    }

    /**
     * The oldest waiting slot, or null when none waits. A post between its claim in the ring and its publication is
     * waited for, as a lock would: receives published behind it, perhaps by this loop before a Send, go with this post.
     */
    private Slot nextWaiting() {
        while (true) {
            Slot slot = waiting.poll();
            if (slot != null || waiting.size() == 0) {
                return slot;
            }
            Thread.onSpinWait();
        }
    }

    /** Frees the slots of chained receives {@code from} to {@code to}, which the device refused, and fails them. */
    private void failRefused(ReceiveList chain, int from, int to, int errno) {
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
        if (left < threshold && (boolean) ARMED.getVolatile(this) && ARMED.compareAndSet(this, true, false)) {
            events.onLimitReached(left);
        }
        return receive;
    }

    /** Posts the waiting receives first, so that the device counts what this queue counts. */
    @Override
    public void armLimit(int limit) {
        postWaiting();
        if (posting.get() < 0) {
            return;
        }
        threshold = limit;
        ARMED.setVolatile(this, true);
        // A take that brought the count below the limit before it was armed did not report it: report it here.
        int now = slots.held();
        if (now < limit && ARMED.compareAndSet(this, true, false)) {
            NativeVerbs.modifySrqLimit(handle, 0); // an earlier arming's, if any
            events.onLimitReached(now);
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
        if (ARMED.compareAndSet(this, true, false)) { // else reported already, by a completion
            events.onLimitReached(Math.min(slots.held(), threshold - 1));
        }
    }

    /** A QP takes its receives from here from now on; false once the queue is closed. */
    synchronized boolean attach() {
        if (posting.get() < 0) {
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
            if (posting.get() < 0) {
                return;
            }
            posting.getAndAdd(CLOSED); // under this lock: attach sees it, and only one close sets it
        }
        ARMED.setVolatile(this, false);
        RdmaException canceled = new RdmaException(Status.CANCELED, "the shared receive queue was closed");
        for (int i = 0; i < depth; i++) {
            WorkRequest receive = slots.release(slots.slot(i));
            if (receive != null) {
                receive.completion().failed(canceled);
            }
        }
        destroyIfDone();
    }

    /** Ends a native post; the last one after a close may destroy the queue. */
    private void leavePost() {
        if (posting.decrementAndGet() == CLOSED) {
            destroyIfDone();
        }
    }

    /** Destroys the queue once it is closed, no QP takes from it and no post is under way; once. */
    private void destroyIfDone() {
        synchronized (this) {
            if (destroyed || posting.get() != CLOSED || queuePairs > 0) {
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
