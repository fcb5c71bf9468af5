package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.NativeLayout.QpInfo;
import dev.rdmafutures.verbs.NativeLayout.ReceiveRequest;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.LinkedList;
import java.util.List;

/**
 * One connection's reliable-connected QP, created with the connection's granted {@link QueueDepths}, and its own CQ
 * with room for both queues, so it cannot overrun: posting, successful silent requests held until a later signalled
 * one proves them done, and the completions its loop hands over. The core never has more requests outstanding than
 * the depths (a silent one keeps its slot until proven done, after its WQE is retired), so every post finds room;
 * reads beyond the outbound read limit wait in the send queue, the device starting them in order. An RC QP completes
 * each queue in order, so the oldest posted request is the one a completion reports. Poller thread only.
 */
final class VerbsQueuePair {
    private static final long RECEIVE_FLAG = 0x8000_0000L;
    private static final int IBV_WR_SEND_WITH_INV = 9;
    private static final int WC_WITH_INV = 8;
    /** {@code NativeVerbs.modifyQpFromCm}'s "keep the CM's read limit". */
    private static final int CM_READ_LIMIT = 255;

    private final VerbsConnection connection;
    private final VerbsEventLoop loop;
    private final CompletionQueue completionQueue;
    private final boolean detached;
    private final QueueDepths depths;
    private IbvQP qp;
    private long handle;
    private SVCPostSend readCall;
    private SVCPostSend writeCall;
    private SVCPostSend sendCall;
    private final ByteBuffer receiveRequest = ByteBuffer.allocateDirect(ReceiveRequest.SIZE)
            .order(ByteOrder.nativeOrder());
    private final long receiveRequestAddress = MemoryUtils.getAddress(receiveRequest);
    private int sequence;
    private final ArrayDeque<WorkRequest> sendQueue = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> receiveQueue = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> heldSilent = new ArrayDeque<>();
    /** The remote error that broke the connection: requests flushed after it fail with its status, as on iWARP. */
    private RdmaException terminatedBy;
    /** The local failure (port, QP, CQ, device) that ended the connection: requests flushed after it fail with it. */
    private RdmaException failedBy;
    private boolean released;

    /**
     * Creates the CQ; {@link #open} then creates the QP. {@code detached}: a two-phase connect on IB/RoCE, whose QP
     * the CM does not own, so that the CM stops at CONNECT_RESPONSE (ABI document §5.5).
     */
    VerbsQueuePair(VerbsConnection connection, VerbsEventLoop loop, boolean detached, QueueDepths depths)
            throws IOException {
        this.connection = connection;
        this.loop = loop;
        this.detached = detached;
        this.depths = depths;
        // Room for everything the QP can hold; AdapterInfo keeps each depth within half of max_cqe.
        this.completionQueue = loop.newCompletionQueue(depths.initiator() + depths.receive());
    }

    /** Creates the QP on {@code id} (or beside it, if detached) and hands the CQ to the loop's polling. */
    void open(RdmaCmId id) throws IOException {
        if (detached) {
            long cq = completionQueue.handle();
            long created = NativeVerbs.createQpDetached(((NatObject) loop.device().pd()).getObjId(), cq, cq,
                    depths.initiator(), depths.receive(), 1, 1, 0, 0);
            if (created < 0) {
                throw new IOException("ibv_create_qp failed (errno " + -created + ")");
            }
            qp = loop.device().wrapQp(created);
        } else {
            IbvQPInitAttr attr = new IbvQPInitAttr();
            attr.cap().setMax_send_wr(depths.initiator());
            attr.cap().setMax_recv_wr(depths.receive());
            attr.cap().setMax_send_sge(1);
            attr.cap().setMax_recv_sge(1);
            attr.setQp_type(IbvQP.IBV_QPT_RC);
            attr.setSend_cq(completionQueue.cq());
            attr.setRecv_cq(completionQueue.cq());
            qp = id.createQP(loop.device().pd(), attr);
        }
        handle = ((NatObject) qp).getObjId();
        loop.addQueuePair(this);
        readCall = prepare(IbvSendWR.IBV_WR_RDMA_READ);
        writeCall = prepare(IbvSendWR.IBV_WR_RDMA_WRITE);
        sendCall = prepare(IbvSendWR.IBV_WR_SEND);
    }

    /** A one-request stateful post of {@code opcode}, patched in place for every request of that kind. */
    private SVCPostSend prepare(int opcode) throws IOException {
        return qp.postSend(List.of(sendRequest(opcode, 0)), null);
    }

    private static IbvSendWR sendRequest(int opcode, int invalidateToken) {
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(opcode);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setImm_data(invalidateToken);
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(new IbvSge());
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        return wr;
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
        return qp.getQp_num();
    }

    /** Moves a detached QP to INIT with the CM's attributes, before the connect. */
    int moveToInit(long idHandle) {
        return NativeVerbs.modifyQpFromCm(idHandle, handle, IbvQP.IBV_QPS_INIT, CM_READ_LIMIT);
    }

    /** Moves a detached QP to RTR and RTS with the negotiated read limits; 0 or a negative errno. */
    int moveToReadyToSend(long idHandle, int inbound, int outbound) {
        int rc = NativeVerbs.modifyQpFromCm(idHandle, handle, IbvQP.IBV_QPS_RTR, inbound);
        return rc < 0 ? rc : NativeVerbs.modifyQpFromCm(idHandle, handle, IbvQP.IBV_QPS_RTS, outbound);
    }

    /** The read limits the device applied, for the debug log. */
    String describeReadLimits() {
        ByteBuffer info = ByteBuffer.allocateDirect(NativeVerbs.QP_INFO_SIZE).order(ByteOrder.nativeOrder());
        int rc = NativeVerbs.queryQp(handle, MemoryUtils.getAddress(info));
        return "QP outbound reads " + Byte.toUnsignedInt(info.get(QpInfo.MAX_RD_ATOMIC)) + ", inbound reads "
                + Byte.toUnsignedInt(info.get(QpInfo.MAX_DEST_RD_ATOMIC)) + " (query " + rc + ")";
    }

    // --- posting -----------------------------------------------------------------------------------------------

    /** Posts {@code request}; the core's slots guarantee its queue has room. */
    void post(WorkRequest request) {
        if (request.kind() == WorkRequest.Kind.RECEIVE) {
            postReceive(request);
        } else {
            postSend(request);
        }
    }

    private void postSend(WorkRequest request) {
        VerbsRegion local = (VerbsRegion) request.region(0);
        long wrId = sequence++ & 0x7FFF_FFFFL;
        int flags = IbvSendWR.IBV_SEND_SIGNALED | (request.has(WorkRequest.READ_FENCE) ? IbvSendWR.IBV_SEND_FENCE : 0);
        try {
            SVCPostSend call = switch (request.kind()) {
                case READ -> readCall;
                case WRITE -> writeCall;
                case SEND -> sendCall;
                default -> qp.postSend(List.of(sendRequest(IBV_WR_SEND_WITH_INV, request.remoteToken())), null);
            };
            SVCPostSend.SendWRMod wr = call.getWrMod(0);
            wr.setWr_id(wrId);
            wr.setSend_flags(flags);
            SVCPostSend.SgeMod sge = wr.getSgeMod(0);
            sge.setAddr(local.address() + request.offset(0));
            sge.setLength(request.length());
            sge.setLkey(local.localKey());
            wr.getRdmaMod().setRemote_addr(request.remoteAddress());
            wr.getRdmaMod().setRkey(request.remoteToken());
            call.execute();
            if (request.kind() == WorkRequest.Kind.SEND_INVALIDATE) {
                call.free();
            }
        } catch (IOException e) {
            request.completion().failed(VerbsErrors.postSendFailed(e));
            return;
        }
        sendQueue.add(request);
    }

    private void postReceive(WorkRequest request) {
        VerbsRegion local = (VerbsRegion) request.region(0);
        ByteBuffer wr = receiveRequest;
        wr.putLong(ReceiveRequest.WR_ID, RECEIVE_FLAG | (sequence++ & 0x7FFF_FFFFL));
        wr.putLong(ReceiveRequest.NEXT, 0);
        wr.putLong(ReceiveRequest.SG_LIST, receiveRequestAddress + ReceiveRequest.SGE);
        wr.putInt(ReceiveRequest.NUM_SGE, 1);
        wr.putLong(ReceiveRequest.SGE_ADDRESS, local.address() + request.offset(0));
        wr.putInt(ReceiveRequest.SGE_LENGTH, request.length());
        wr.putInt(ReceiveRequest.SGE_LKEY, local.localKey());
        int rc = NativeVerbs.postRecv(handle, receiveRequestAddress, receiveRequestAddress + ReceiveRequest.BAD_INDEX);
        if (rc < 0) {
            request.completion().failed(VerbsErrors.postReceiveFailed(-rc));
            return;
        }
        receiveQueue.add(request);
    }

    // --- completions -------------------------------------------------------------------------------------------

    /** Handles what the CQ holds; returns how many completions there were. */
    int drainCompletions() {
        int total = 0;
        try {
            int n;
            do {
                n = completionQueue.poll();
                if (n > 0) {
                    total += loop.beforeDispatch();
                }
                for (int i = 0; i < n && !released; i++) {
                    IbvWC completion = completionQueue.completion(i);
                    onCompletion(completion, (int) completion.getWr_id());
                    total++;
                }
            } while (n == CompletionQueue.POLL_BATCH && !released); // fewer: the CQ was emptied
        } catch (IOException e) {
            loop.poller().recordError("poll completion queue", e);
        }
        return total;
    }

    /** Whether {@code cqHandle} is this QP's CQ. */
    boolean reportsTo(long cqHandle) {
        return completionQueue.handle() == cqHandle;
    }

    /** Arms the CQ before the loop sleeps; true if completions are already waiting. */
    boolean armCompletions() throws IOException {
        return completionQueue.arm();
    }

    void onCompletionEvent() throws IOException {
        completionQueue.onEvent();
    }

    private void onCompletion(IbvWC completion, int lowWrId) {
        boolean receive = (lowWrId & RECEIVE_FLAG) != 0;
        WorkRequest request = (receive ? receiveQueue : sendQueue).poll();
        if (request == null) {
            return;
        }
        int status = completion.getStatus();
        if (status == VerbsErrors.WC_SUCCESS) {
            if (receive) {
                int bytes = completion.getByte_len();
                if ((completion.getWc_flags() & WC_WITH_INV) != 0) {
                    request.completion().completedWithInvalidate(bytes, completion.getImm_data());
                } else {
                    request.completion().completed(bytes);
                }
            } else {
                if (request.has(WorkRequest.SILENT_SUCCESS)) {
                    heldSilent.add(request);
                } else {
                    releaseSilent();
                    request.completion().completed(request.length());
                }
            }
            return;
        }
        if (!receive) {
            releaseSilent();
        }
        if (status == VerbsErrors.WC_WR_FLUSH_ERR || !connection.isEstablished()) {
            request.completion().failed(flushed());
            return;
        }
        if (status == VerbsErrors.WC_LOC_QP_OP_ERR && !receive) {
            connection.onConnectionLost(VerbsErrors.completion(status, false, completion.getVendor_err()));
            request.completion().failed(flushed());
            return;
        }
        RdmaException error = VerbsErrors.completion(status, receive, completion.getVendor_err());
        request.completion().failed(error);
        terminatedBy = error;
        connection.onTerminated();
    }

    private void releaseSilent() {
        WorkRequest silent;
        while ((silent = heldSilent.poll()) != null) {
            silent.completion().completed(silent.length());
        }
    }

    // --- failure and teardown ----------------------------------------------------------------------------------

    /** Whether a remote error broke the connection. */
    boolean isTerminated() {
        return terminatedBy != null;
    }

    /** Records the local failure that ends the connection, for every request not yet completed. */
    void recordFailure(RdmaException failure) {
        if (failedBy == null) {
            failedBy = failure;
        }
    }

    /** Why a request that never ran fails: the remote error or local failure that ended the connection, or its end. */
    RdmaException flushed() {
        if (terminatedBy != null) {
            return new RdmaException(terminatedBy.status(), "not executed: an earlier request on the connection to "
                    + connection.remoteAddress() + " failed (" + terminatedBy.getMessage() + ")");
        }
        if (failedBy != null) {
            return new RdmaException(failedBy.status(), "not executed: " + failedBy.getMessage());
        }
        return new RdmaException(Status.CANCELED, "the connection to " + connection.remoteAddress() + " ended");
    }

    /** Completes every request this QP still holds: silent successes as done, the rest as {@link #flushed()}. */
    void failOutstanding() {
        RdmaException error = flushed();
        releaseSilent();
        failAll(sendQueue, error);
        failAll(receiveQueue, error);
    }

    private static void failAll(ArrayDeque<WorkRequest> queue, RdmaException error) {
        WorkRequest next;
        while ((next = queue.poll()) != null) {
            next.completion().failed(error);
        }
    }

    /**
     * Destroys the QP, then the CQ: a detached QP here, the CM's by {@code destroyId} (it goes with its id). Once.
     * Completions still in the CQ are dropped, so {@link #failOutstanding()} comes first.
     */
    void release(Runnable destroyId) {
        released = true;
        for (SVCPostSend call : new SVCPostSend[] {readCall, writeCall, sendCall}) {
            if (call != null) {
                call.free();
            }
        }
        if (detached && qp != null) {
            NativeVerbs.destroyQpDetached(handle); // not the CM's: destroying the id leaves it alone
        }
        destroyId.run();
        loop.removeQueuePair(this);
        try {
            completionQueue.destroy(); // after its QP
        } catch (IOException e) {
            loop.poller().recordError("destroy completion queue", e);
        }
    }
}
