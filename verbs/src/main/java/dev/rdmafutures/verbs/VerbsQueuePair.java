package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvQP;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's reliable-connected QP, created with the connection's granted {@link QueueDepths} (segments per
 * request included) and taking its receives from its own receive queue or from a {@link VerbsSharedReceiveQueue},
 * with room in its loop's shared CQ for every completion the QP can produce, so it cannot overrun. A duty cycle's
 * requests join reused native chains ({@link SendList}, {@link ReceiveList}) in posting order, and the loop's flush
 * posts each chain with one call, one doorbell, every queue's receives before any sends ({@link PendingPosts}); a
 * window bind or invalidation posts the send chain at once, after the receives chained so far, as the provider reads
 * the window's rkey when it is posted. The completions its loop hands over go to
 * {@link RequestOutcomes}, which says how each request ends. The core never has more requests outstanding than the
 * depths (a silent one keeps its slot until proven done, after its WQE is retired), so every chain and post finds
 * room; reads beyond the outbound read limit wait in the send queue, the device starting them in order. Poller
 * thread only.
 */
final class VerbsQueuePair implements PendingPosts {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsQueuePair.class);
    /** Work-request id bits: a receive (the low 32 bits are a shared receive queue's slot), a part of a READ. */
    static final long RECEIVE_ID = 1L << 62;
    private static final long PART_ID = 1L << 61;
    /** {@code NativeVerbs.modifyQpFromCm}'s "keep the CM's read limit". */
    private static final int CM_READ_LIMIT = 255;
    /**
     * The RNR NAK timer our QPs ask a sender to wait for when its Send found no receive: 12, 0.64 ms in the IB
     * encoding, as perftest sets it (rxe waits at least one jiffy). The IB CM moves every QP to RTR with 0, which
     * means 655.36 ms: one Send that arrived a moment before the receive its peer was re-posting stalled the
     * connection for that long (MessageRate's SEND rows ran at 16-33 a second on rxe).
     */
    static final int MIN_RNR_TIMER = 12;

    private final VerbsConnection connection;
    private final VerbsDomain domain;
    private final VerbsEventLoop loop;
    private final CompletionQueues completionQueues;
    private final CompletionQueue completionQueue;
    /** The entries reserved in the CQ for this QP's own requests (a shared receive queue's are the CQ's). */
    private final int completionEntries;
    private final boolean detached;
    private final QueueDepths depths;
    private final VerbsSharedReceiveQueue sharedQueue;
    private final int sendRequests;
    /** Segments per send-queue work request: the granted ones, and two where a short payload may be cut (siw). */
    private final int sendSge;
    private final SendList sendList;
    private final ReceiveList receiveList;
    /** Requests the device refused, failed after the post that refused them, in order. */
    private final ArrayDeque<Refusal> refused = new ArrayDeque<>();
    /** Listed with the loop for its duty cycle's flush. */
    private boolean listed;
    private long handle;
    private int number;
    private long idHandle;
    private boolean attachedToSharedQueue;
    private int sequence;
    private final RequestOutcomes outcomes;
    private boolean released;

    /**
     * Creates the CQ; {@link #open} then creates the QP. {@code detached}: a two-phase connect on IB/RoCE, whose QP
     * the CM does not own, so that the CM stops at CONNECT_RESPONSE ({@code docs/native-abi.md} §5.5).
     * {@code sharedQueue}: where the QP takes its receives from, or null for its own receive queue;
     * {@code connectionEvents}: the connection its receives report having arrived on.
     */
    VerbsQueuePair(VerbsConnection connection, VerbsEventLoop loop, boolean detached, QueueDepths depths,
                   VerbsDomain domain, VerbsSharedReceiveQueue sharedQueue, ConnectionEvents connectionEvents)
            throws IOException {
        this.connection = connection;
        this.domain = domain;
        this.loop = loop;
        this.detached = detached;
        this.depths = depths;
        this.sharedQueue = sharedQueue;
        VerbsDevice device = loop.device();
        boolean shortCrossings = device.shortCrossings();
        this.sendSge = shortCrossings ? Math.max(2, depths.initiatorSge()) : depths.initiatorSge();
        this.sendRequests = depths.initiator()
                * SendList.parts(SendList.segments(depths.initiatorSge(), shortCrossings), device.maxReadSge(),
                device.bindsWindows());
        this.sendList = new SendList(depths.initiator(), depths.initiatorSge(), device.maxReadSge(),
                domain.emptySink(), shortCrossings, device.bindsWindows());
        this.receiveList = sharedQueue == null
                ? new ReceiveList(depths.receive(), depths.receiveSge(), domain.emptySink()) : null;
        this.outcomes = new RequestOutcomes(connection, sharedQueue, connectionEvents, device, domain.windows(),
                depths.initiator());
        // Room in the loop's CQ for everything the QP can complete: every send-queue work request (a failure
        // completes unsignalled ones too) and every receive, its own or, once per CQ, any of the shared queue's.
        // AdapterInfo's maxima keep one QP's within max_cqe.
        this.completionEntries = sendRequests + (sharedQueue == null ? depths.receive() : 0);
        this.completionQueues = loop.completionQueues();
        this.completionQueue = completionQueues.reserve(completionEntries, sharedQueue);
    }

    /**
     * Creates the QP on {@code id} (or beside it, if detached) and routes its completions to it.
     *
     * @throws RdmaException INVALID_DEVICE_STATE when the shared receive queue was closed meanwhile
     */
    void open(long cmIdHandle) throws IOException {
        this.idHandle = cmIdHandle;
        long srq = 0;
        if (sharedQueue != null) {
            if (!sharedQueue.attach()) {
                throw new RdmaException(Status.INVALID_DEVICE_STATE, sharedQueue + " was closed");
            }
            attachedToSharedQueue = true;
            srq = sharedQueue.handle();
        }
        long pd = domain.pdHandle();
        long cq = completionQueue.handle();
        int receives = sharedQueue == null ? depths.receive() : 0;
        int receiveSge = sharedQueue == null ? depths.receiveSge() : 0;
        long created = detached
                ? NativeVerbs.createQpDetached(pd, cq, cq, srq, sendRequests, receives, sendSge, receiveSge, 0, 0)
                : NativeVerbs.createQp(cmIdHandle, pd, cq, cq, srq, sendRequests, receives, sendSge, receiveSge, 0, 0);
        if (created < 0) {
            throw new IOException((detached ? "ibv_create_qp" : "rdma_create_qp") + " of " + sendRequests
                    + " send and " + receives + " receive requests failed (errno " + -created + ")");
        }
        handle = created;
        domain.hold();
        number = QpQuery.number(handle);
        completionQueues.register(number, this);
    }

    boolean isDetached() {
        return detached;
    }

    /** The QP's handle ({@code struct ibv_qp *}), as asynchronous events name it. */
    long handle() {
        return handle;
    }

    /** The QP number a detached QP's connect carries. */
    int number() throws IOException {
        return QpQuery.number(handle);
    }

    /** Moves a detached QP to INIT with the CM's attributes, before the connect. */
    int moveToInit(long cmIdHandle) {
        return NativeVerbs.modifyQpFromCm(cmIdHandle, handle, IbvQP.IBV_QPS_INIT, CM_READ_LIMIT);
    }

    /** Moves a detached QP to RTR and RTS with the negotiated read limits; 0 or a negative errno. */
    int moveToReadyToSend(long cmIdHandle, int inbound, int outbound) {
        int rc = NativeVerbs.modifyQpFromCm(cmIdHandle, handle, IbvQP.IBV_QPS_RTR, inbound);
        return rc < 0 ? rc : NativeVerbs.modifyQpFromCm(cmIdHandle, handle, IbvQP.IBV_QPS_RTS, outbound);
    }

    /**
     * Gives the QP our RNR timer ({@link #MIN_RNR_TIMER}) once the CM moved it to RTR or RTS, which set the CM's
     * 655.36 ms (librdmacm has no option for it); on IB and RoCE only, as iWARP has no RNR NAK. A device that refuses
     * keeps the CM's timer, which the log says.
     */
    void shortenRnrTimer() {
        if (loop.device().adapterInfo().transport() == AdapterInfo.Transport.IWARP) {
            return;
        }
        int rc = NativeVerbs.setMinRnrTimer(handle, MIN_RNR_TIMER);
        if (rc < 0 && inErrorState()) {
            // A peer that sends a request the device refuses as soon as it can breaks the QP before the accept ends:
            // nothing to warn of, and a peer must not fill the log. The connection ends on the peer's disconnect.
            LOG.debug("{}: no RNR timer set (errno {}): the QP is in the error state already", connection, -rc);
            connection.onBrokenWhileEstablishing();
        } else if (rc < 0) {
            LOG.warn("{}: the device refused RNR timer {} (errno {}): a Send that finds no receive posted waits "
                    + "655 ms before its retry", connection, MIN_RNR_TIMER, -rc);
        }
    }

    /** The read limits and retry budget the device applied, for the debug log. */
    String describe() {
        return QpQuery.describe(handle);
    }

    // --- posting -----------------------------------------------------------------------------------------------

    /** Posts {@code request}: it joins this duty cycle's chain; the core's slots guarantee the chain has room. */
    void post(WorkRequest request) {
        switch (request.kind()) {
            case RECEIVE -> {
                receiveList.write(request, RECEIVE_ID);
                outcomes.addReceive(request);
                postLater();
            }
            case BIND_WINDOW, INVALIDATE_WINDOW -> postWindow(request);
            // The core posts none where AdapterInfo says so; libibverbs fast-registers for kernel users only.
            case FAST_REGISTER -> request.completion().failed(new RdmaException(Status.NOT_SUPPORTED,
                    "verbs has no fast registration"));
            default -> {
                int posted = sequence++;
                long wrId = outcomes.nextSendId(posted);
                sendList.write(request, wrId, wrId | PART_ID);
                outcomes.addSend(request, posted);
                postLater();
            }
        }
    }

    private void postLater() {
        if (!listed) {
            listed = true;
            loop.postLater(this);
        }
    }

    private void postWindow(WorkRequest request) {
        int posted = sequence++;
        long wrId = outcomes.nextSendId(posted);
        try {
            ((VerbsWindow) request.window()).post(request, this, posted, wrId, wrId | PART_ID);
        } catch (RdmaException e) {
            request.completion().failed(e);
            return;
        }
        failRefused();
    }

    /** The send chain, for a window to append its bind or invalidation to. */
    SendList sendList() {
        return sendList;
    }

    /**
     * Posts the send chain, which ends with window request {@code request} (posted with {@code sequence}, giving or
     * revoking {@code token}); true if the device took it all, else the refused requests fail once the window's
     * lock is let go.
     */
    boolean postWithWindowRequest(WorkRequest request, int sequence, int token) {
        outcomes.addWindowRequest(request, sequence, token);
        loop.postReceivesNow(); // the receives this poller chained before the Sends that leave now go first
        return postSends();
    }

    /**
     * The flush's first phase: posts the receive chain, one call; the device's refusals fail in
     * {@link #postPendingSends()}. A connection no longer established posts nothing more.
     */
    @Override
    public int postPendingReceives() {
        if (receiveList == null || receiveList.isEmpty() || !connection.isEstablished()) {
            return 0;
        }
        int posted = receiveList.size();
        postReceives();
        return posted;
    }

    /**
     * The flush's second phase: posts what is chained still, the receives (those chained since the first phase) and
     * then the send chain, one call each. A connection no longer established posts nothing more: its chains are
     * dropped, and its end settles their requests as it settles the ones the device flushed.
     */
    @Override
    public int postPendingSends() {
        listed = false;
        int handled = (receiveList == null ? 0 : receiveList.size()) + sendList.requests();
        if (!connection.isEstablished()) {
            dropPending();
            return handled;
        }
        if (receiveList != null && !receiveList.isEmpty()) {
            postReceives();
        }
        if (!sendList.isEmpty()) {
            postSends();
        }
        failRefused();
        return handled;
    }

    private void dropPending() {
        sendList.clear();
        if (receiveList != null) {
            receiveList.clear();
        }
    }

    /** One {@code ibv_post_send} of the chain; false when the device refused a part, whose requests are taken back. */
    private boolean postSends() {
        int rc = NativeVerbs.postSend(handle, sendList.address(), sendList.badIndexAddress());
        boolean took = rc >= 0;
        if (!took) {
            // The requests from the refused one on did not reach the device; parts of a split READ before the
            // refused one may have, and their completions match no request then.
            int bad = sendList.badIndex();
            int first = sendList.requestAt(bad);
            refuse(outcomes.removeNewestSends(sendList.requests() - first), "ibv_post_send", -rc,
                    bad - sendList.start(first));
        }
        sendList.clear();
        return took;
    }

    private void postReceives() {
        int rc = NativeVerbs.postRecv(handle, receiveList.address(), receiveList.badIndexAddress());
        if (rc < 0) {
            refuse(outcomes.removeNewestReceives(receiveList.size() - receiveList.badIndex()), "ibv_post_recv", -rc,
                    0);
        }
        receiveList.clear();
    }

    /** Queues {@code requests} to fail: the first refused at its work request {@code index}, the rest behind it. */
    private void refuse(WorkRequest[] requests, String call, int errno, int index) {
        for (int i = 0; i < requests.length; i++) {
            refused.add(new Refusal(requests[i], i == 0 ? VerbsErrors.postFailed(call, errno, index)
                    : VerbsErrors.notPosted(call, errno)));
        }
    }

    /** Fails the refused requests in order; those a callback's post has refused meanwhile join the end. */
    private void failRefused() {
        Refusal next;
        while ((next = refused.poll()) != null) {
            next.request().completion().failed(next.error());
        }
    }

    /** A request the device refused, and why. */
    private record Refusal(WorkRequest request, RdmaException error) {
    }

    // --- completions -------------------------------------------------------------------------------------------

    /** Whether {@code cqHandle} is the CQ this QP reports to (and shares with others of its loop). */
    boolean reportsTo(long cqHandle) {
        return completionQueue.handle() == cqHandle;
    }

    /** Hands over everything the CQ holds now, this QP's completions and the others'. */
    void drainCompletions() {
        completionQueues.drain(completionQueue, false);
    }

    /**
     * One completion of this QP, at {@code at} in {@code queue}'s batch; its fields are read before any callback
     * runs, which may drain the CQ again. Once the QP is released its requests were settled, but for the shared
     * receives it took since the last drain before its destruction: those fail here.
     */
    void onCompletion(CompletionQueue queue, int at) {
        long wrId = queue.wrId(at);
        if (released) {
            if (sharedQueue != null && (wrId & RECEIVE_ID) != 0) {
                outcomes.failUnreported((int) wrId);
            }
            return;
        }
        int status = queue.status(at);
        int vendorError = queue.vendorError(at);
        if ((wrId & RECEIVE_ID) != 0) {
            outcomes.onReceiveCompletion((int) wrId, status, vendorError, queue.byteLength(at), queue.flags(at),
                    queue.immediate(at));
        } else {
            outcomes.onSendCompletion(wrId, (wrId & PART_ID) != 0, status, vendorError);
        }
    }

    /**
     * Completes every request this QP still holds: what the CQ reports first (a shared receive queue's receives
     * taken by this QP have no other way back; the other QPs' completions go to them), then the rest as
     * {@link RequestOutcomes#settleRemaining()} says, those of the chains not yet posted among them.
     */
    void failOutstanding() {
        dropPending(); // the newest outstanding requests, settled below: the QP is about to go
        completionQueues.drain(completionQueue, false);
        outcomes.settleRemaining();
    }

    /** How the requests of this QP end. */
    RequestOutcomes outcomes() {
        return outcomes;
    }

    /** The tokens this side retired in the QP's protection domain so far. */
    TokenRetirements tokenRetirements() {
        return domain.tokenRetirements();
    }

    /** Whether the device holds the QP in the error state ({@code ibv_query_qp}); false when the query fails. */
    boolean inErrorState() {
        return QpQuery.state(handle) == IbvQP.IBV_QPS_ERR;
    }

    /**
     * Destroys the QP, then the id ({@code destroyId}), then gives back its entries in the CQ, whose completions of
     * this QP are dropped from now on (the shared receives among them fail), so {@link #failOutstanding()} comes
     * first. Once.
     */
    void release(Runnable destroyId) {
        released = true;
        VerbsWindows windows = domain.windows();
        if (windows != null && handle != 0) {
            windows.queuePairEnding(this); // rxe would hold the QP's destruction until its windows are freed
        }
        if (handle != 0) {
            // A detached QP is not the CM's: destroying the id leaves it alone. The CM's goes before its id.
            int rc = detached ? NativeVerbs.destroyQpDetached(handle) : NativeVerbs.destroyQp(idHandle);
            if (rc < 0) {
                loop.poller().recordError("destroy queue pair", new IOException("errno " + -rc));
            }
            domain.letGo(); // after the QP: a closed domain is deallocated with its last
        }
        if (attachedToSharedQueue) {
            sharedQueue.detach(); // after its QP: the last one out destroys a closed queue
        }
        destroyId.run();
        // After its QP: a device may leave the QP's flushed completions in the CQ, which go before its number.
        completionQueues.release(this, number, completionQueue, completionEntries, sharedQueue);
        outcomes.failUnreported(-1); // held for a connection that was never established
    }
}
