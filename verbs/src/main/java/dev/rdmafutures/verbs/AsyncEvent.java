package dev.rdmafutures.verbs;

import dev.rdmafutures.verbs.NativeLayout.AsyncEventInfo;
import java.nio.ByteBuffer;

/**
 * One asynchronous device event ({@code ibv_get_async_event}) as {@code NativeVerbs.getAsyncEvent} copied it before
 * acknowledging: its {@code enum ibv_event_type}, the port it concerns, and the QP, CQ or SRQ handle it concerns.
 *
 * @param type    the {@code ibv_event_type}
 * @param port    the port number, for port events
 * @param element the {@code struct ibv_qp *}, {@code struct ibv_cq *} or {@code struct ibv_srq *}, for QP, CQ and
 *                SRQ events
 */
record AsyncEvent(int type, int port, long element) {
    static final int CQ_ERR = 0;
    static final int QP_FATAL = 1;
    static final int QP_REQ_ERR = 2;
    static final int QP_ACCESS_ERR = 3;
    static final int DEVICE_FATAL = 8;
    static final int PORT_ERR = 10;
    static final int SRQ_ERR = 14;
    static final int SRQ_LIMIT_REACHED = 15;
    private static final String[] NAMES = {"CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST",
        "SQ_DRAINED", "PATH_MIG", "PATH_MIG_ERR", "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR", "LID_CHANGE",
        "PKEY_CHANGE", "SM_CHANGE", "SRQ_ERR", "SRQ_LIMIT_REACHED", "QP_LAST_WQE_REACHED", "CLIENT_REREGISTER",
        "GID_CHANGE", "WQ_FATAL"};

    /** The event in {@code record}. */
    static AsyncEvent read(ByteBuffer record) {
        return new AsyncEvent(record.getInt(AsyncEventInfo.TYPE), record.getInt(AsyncEventInfo.PORT),
                record.getLong(AsyncEventInfo.ELEMENT));
    }

    /** libibverbs' name, e.g. {@code IBV_EVENT_PORT_ERR}. */
    String name() {
        return "IBV_EVENT_" + (type >= 0 && type < NAMES.length ? NAMES[type] : type);
    }

    /** Whether it ends connections: a fatal QP, CQ or device error, or a port that went down. */
    boolean isFatal() {
        return type == CQ_ERR || type == QP_FATAL || type == QP_REQ_ERR || type == QP_ACCESS_ERR
                || type == DEVICE_FATAL || type == PORT_ERR;
    }

    /** What a fatal event does to this provider's connections, for the one log line per event. */
    String consequence() {
        return switch (type) {
            case PORT_ERR -> "the connections on port " + port + " end with DEVICE_ERROR";
            case DEVICE_FATAL -> "every connection ends with DEVICE_ERROR";
            case CQ_ERR -> "the connections sharing the CQ end with DEVICE_ERROR";
            default -> "the connection owning the QP ends with DEVICE_ERROR unless the transport reports a cause first";
        };
    }

    /** Whether it names a shared receive queue. */
    boolean isSharedReceiveQueueEvent() {
        return type == SRQ_ERR || type == SRQ_LIMIT_REACHED;
    }

    /** Whether it names a QP. */
    boolean isQueuePairError() {
        return type == QP_FATAL || type == QP_REQ_ERR || type == QP_ACCESS_ERR;
    }

    @Override
    public String toString() {
        return name() + (type == PORT_ERR ? " on port " + port : "");
    }
}
