package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.verbs.NativeLayout.QpInfo;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What {@code ibv_query_qp} says of a QP: its state, its number, the read limits, the retry budget and the RNR
 * timer the device applied.
 */
final class QpQuery {
    private QpQuery() {
    }

    /** The number of QP {@code handle}. */
    static int number(long handle) throws IOException {
        ByteBuffer info = record();
        int rc = NativeVerbs.queryQp(handle, MemoryUtils.getAddress(info));
        if (rc < 0) {
            throw new IOException("ibv_query_qp failed (errno " + -rc + ")");
        }
        return info.getInt(QpInfo.QP_NUMBER);
    }

    /** The state of QP {@code handle} ({@code enum ibv_qp_state}), or a negative errno when the query failed. */
    static int state(long handle) {
        ByteBuffer info = record();
        int rc = NativeVerbs.queryQp(handle, MemoryUtils.getAddress(info));
        return rc < 0 ? rc : info.getInt(QpInfo.STATE);
    }

    /** The read limits, retry budget and RNR timer QP {@code handle} runs with, for the debug log. */
    static String describe(long handle) {
        ByteBuffer info = record();
        int rc = NativeVerbs.queryQp(handle, MemoryUtils.getAddress(info));
        return "QP outbound reads " + Byte.toUnsignedInt(info.get(QpInfo.MAX_RD_ATOMIC)) + ", inbound reads "
                + Byte.toUnsignedInt(info.get(QpInfo.MAX_DEST_RD_ATOMIC)) + ", "
                + new RetryBudget(Byte.toUnsignedInt(info.get(QpInfo.ACK_TIMEOUT)),
                        Byte.toUnsignedInt(info.get(QpInfo.RETRY_COUNT))) + ", RNR timer "
                + Byte.toUnsignedInt(info.get(QpInfo.MIN_RNR_TIMER)) + " x " + Byte.toUnsignedInt(info.get(
                        QpInfo.RNR_RETRY)) + " retries (query " + rc + ")";
    }

    private static ByteBuffer record() {
        return ByteBuffer.allocateDirect(NativeVerbs.QP_INFO_SIZE).order(ByteOrder.nativeOrder());
    }
}
