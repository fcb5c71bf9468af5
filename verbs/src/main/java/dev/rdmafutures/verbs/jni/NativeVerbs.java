package dev.rdmafutures.verbs.jni;

/**
 * The calls DiSNI 2.1 lacks, implemented in the same {@code libdisni.so} as DiSNI's own natives
 * ({@code verbs_extension.c}; contract and record layouts: {@code docs/native-abi.md} §6). Handles are the
 * pointer values DiSNI's objects report through {@code getObjId()} and the pointers these calls return; results are
 * {@code >= 0} on success and a negative errno on failure; {@code out} arguments are addresses of native-order direct
 * buffers of at least the documented size. Work-request lists are {@code struct ibv_send_wr}/{@code ibv_recv_wr}
 * chains with their {@code struct ibv_sge} arrays, as the caller lays them out ({@link #layout} reports the offsets
 * this library was built with). Internal: load with {@link NativeLibrary#ensureLoaded()} first.
 */
public final class NativeVerbs {
    /** Size of the event record {@link #getCmEvent} writes. */
    public static final int CM_EVENT_INFO_SIZE = 304;
    /** Size of the record {@link #queryDevice} writes ({@code docs/native-abi.md} §6.2). */
    public static final int DEVICE_INFO_SIZE = 136;
    /** Size of the record {@link #queryQp} writes. */
    public static final int QP_INFO_SIZE = 48;
    /** Size of the record {@link #queryPort} writes. */
    public static final int PORT_INFO_SIZE = 16;
    /** Size of the record {@link #getCmIdInfo} writes. */
    public static final int CM_ID_INFO_SIZE = 296;
    /** Size of the record {@link #getAsyncEvent} writes. */
    public static final int ASYNC_EVENT_INFO_SIZE = 16;
    /** {@code -EAGAIN}: nothing arrived before the timeout. */
    public static final int AGAIN = -11;

    private NativeVerbs() {
    }

    /** librdmacm's device contexts ({@code rdma_get_devices}): writes up to {@code capacity} handles, returns the count. */
    public static native int getDevices(long out, int capacity);

    /** The device name of a context, as bytes; returns its length. */
    public static native int deviceName(long context, long out, int capacity);

    /** {@code ibv_query_device_ex} into a DeviceInfo record. */
    public static native int queryDevice(long context, long out);

    /** {@code ibv_query_port}: state, active MTU, link layer, GID table length. */
    public static native int queryPort(long context, int port, long out);

    /** {@code RDMA_OPTION_ID_REUSEADDR}; must precede binding. */
    public static native int setReuseAddr(long cmId, int enable);

    /**
     * {@code RDMA_OPTION_ID_ACK_TIMEOUT}: the local ACK timeout (4.096 µs × 2^{@code timeout}, 1 to 31) the CM gives
     * the QP on its way to RTS; before {@code rdma_connect} or {@code rdma_accept}.
     */
    public static native int setAckTimeout(long cmId, int timeout);

    /**
     * {@code rdma_connect} with the given read limits and private data ({@code qpNum} and {@code srq}, 1 when the QP
     * takes its receives from a shared receive queue, only without an attached QP).
     */
    public static native int connect(long cmId, int responderResources, int initiatorDepth, int retryCount,
                                     int rnrRetryCount, long privateData, int privateLength, int qpNum, int srq);

    /** {@code rdma_accept} with the given read limits and private data. */
    public static native int accept(long cmId, int responderResources, int initiatorDepth, int rnrRetryCount,
                                    long privateData, int privateLength, int qpNum);

    /** {@code rdma_reject} with private data. */
    public static native int reject(long cmId, long privateData, int privateLength);

    /** {@code rdma_establish}: the active side's second phase without an attached QP. */
    public static native int establish(long cmId);

    /** {@code rdma_migrate_id}: the id's events, those queued included, go to {@code channel} from now on. */
    public static native int migrateId(long cmId, long channel);

    /** Waits up to {@code timeoutMs} for a CM event, copies all of it into a CmEventInfo record, acknowledges it and returns its type. */
    public static native int getCmEvent(long channel, long out, int timeoutMs);

    /** The file descriptor of a CM event channel. */
    public static native int eventChannelFd(long channel);

    /** Device, QP, channel, port space, transport and both addresses of a CM id. */
    public static native int getCmIdInfo(long cmId, long out);

    /**
     * {@code rdma_create_qp} (RC, selective signalling) with all capabilities, taking its receives from {@code srq}
     * unless it is 0 (then the receive capabilities are ignored); writes the granted ones (5 × u32, {@code ibv_qp_cap}
     * order) to {@code outCaps} unless it is 0. Destroy it with {@link #destroyQp} before the id.
     */
    public static native long createQp(long cmId, long pd, long sendCq, long recvCq, long srq, int maxSendWr,
                                       int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInline, long outCaps);

    /** {@code rdma_destroy_qp} of the QP {@link #createQp} attached to {@code cmId}. */
    public static native int destroyQp(long cmId);

    /**
     * {@code ibv_create_qp} (RC) not attached to a CM id, for the two-phase connect; {@code srq} and granted caps as
     * in {@link #createQp}.
     */
    public static native long createQpDetached(long pd, long sendCq, long recvCq, long srq, int maxSendWr,
                                               int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInline,
                                               long outCaps);

    /** {@code ibv_destroy_qp} of a QP from {@link #createQpDetached}. */
    public static native int destroyQpDetached(long qp);

    /**
     * Moves a detached QP to {@code state} with the CM's attributes for the connection, overriding that step's read
     * limit (RTR: inbound, RTS: outbound; 255 keeps the CM's value).
     */
    public static native int modifyQpFromCm(long cmId, long qp, int state, int readLimit);

    /**
     * {@code ibv_modify_qp} of an RC QP in RTR or RTS with {@code IBV_QP_MIN_RNR_TIMER}: the RNR NAK timer (IB
     * encoding, 0-31; 0 is 655.36 ms) its NAKs ask a sender to wait before retrying a Send that found no receive.
     */
    public static native int setMinRnrTimer(long qp, int timer);

    /** {@code ibv_query_qp}: state, capabilities and effective read limits. */
    public static native int queryQp(long qp, long out);

    /** {@code ibv_post_send} of a serialized list; on failure the failing WR's index goes to {@code outBadIndex}. */
    public static native int postSend(long qp, long list, long outBadIndex);

    /** {@code ibv_post_recv} of a serialized list; on failure the failing WR's index goes to {@code outBadIndex}. */
    public static native int postRecv(long qp, long list, long outBadIndex);

    /** {@code ibv_post_srq_recv} of a serialized receive list; the failing WR's index as in {@link #postRecv}. */
    public static native int postSrqRecv(long srq, long list, long outBadIndex);

    /** {@code ibv_alloc_mw} of a type-2 window: its handle, or a negative errno (EOPNOTSUPP where there are none). */
    public static native long allocMw(long pd);

    /** {@code ibv_dealloc_mw}; a window still bound is revoked with it. */
    public static native int deallocMw(long mw);

    /** The window's current rkey ({@code struct ibv_mw}'s), unsigned, or a negative errno. */
    public static native long mwRkey(long mw);

    /** Sets the window's rkey to the one a posted bind gives it: the next bind names it as the current one. */
    public static native int mwSetRkey(long mw, int rkey);

    /** {@code ibv_create_srq} of {@code maxWr} receives of up to {@code maxSge} segments, its limit disarmed. */
    public static native long createSrq(long pd, int maxWr, int maxSge);

    /** {@code ibv_destroy_srq}; fails with EBUSY while a QP uses it. */
    public static native int destroySrq(long srq);

    /**
     * {@code ibv_modify_srq} of {@code srq_limit}: the device raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} once, as
     * soon as fewer than {@code limit} receives remain, and disarms; 0 disarms.
     */
    public static native int modifySrqLimit(long srq, int limit);

    /**
     * The layout this library was compiled against: writes up to {@code capacity} u32 values and returns their count
     * (order in {@code verbs_extension.c}; {@code NativeLayout.verify} compares them).
     */
    public static native int layout(long out, int capacity);

    /**
     * Reads the completion events waiting on the channel (made non-blocking by {@code _createCompChannel}) without
     * blocking, acknowledging each: writes the handles of up to {@code capacity} CQs that fired (u64 each) to
     * {@code out} and returns their count, or a negative errno when the first read failed otherwise than finding none.
     */
    public static native int getCqEvents(long compChannel, long out, int capacity);

    /**
     * Polls up to {@code capacity} completions into as many {@code struct ibv_wc} at {@code out}; the count or a
     * negative errno. Every field is valid on failed completions too, as ibv_poll_cq(3) documents for qp_num.
     */
    public static native int pollCq(long cq, int capacity, long out);

    /** The file descriptor of a completion channel. */
    public static native int compChannelFd(long compChannel);

    /** The file descriptor of a device context's asynchronous events, made non-blocking for {@link #pollFds}. */
    public static native int asyncEventFd(long context);

    /**
     * Waits up to {@code timeoutMs} for an asynchronous device event, copies it (type, port, element handle) into an
     * AsyncEventInfo record, acknowledges it and returns its type.
     */
    public static native int getAsyncEvent(long context, long out, int timeoutMs);

    /** A non-blocking eventfd to interrupt {@link #pollFds}. */
    public static native int createWakeup();

    /** Makes the eventfd readable. */
    public static native int signalWakeup(int fd);

    /** Reads the eventfd back to not readable; 1 if it was signalled. */
    public static native int drainWakeup(int fd);

    /** Closes a descriptor this class created. */
    public static native int closeFd(int fd);

    /** {@code poll(2)} over {@code count} {@code struct pollfd} entries (8 bytes each) at {@code pollFds}. */
    public static native int pollFds(long pollFds, int count, int timeoutMs);
}
