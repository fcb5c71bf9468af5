package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.NativeLayout.ReceiveRequest;
import dev.rdmafutures.verbs.NativeLayout.Sge;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reused native {@code struct ibv_recv_wr} with its {@code struct ibv_sge} array, written for one receive at a time
 * and handed to {@code NativeVerbs.postRecv} or {@code postSrqRecv}: no allocation per receive. Segments of length 0
 * are left out; a receive without bytes has no segment. Confined to its owner's thread (or lock).
 */
final class ReceiveList {
    private final ByteBuffer list;
    private final long address;
    private final int badIndexOffset;

    /** Room for receives of up to {@code maxSge} segments. */
    ReceiveList(int maxSge) {
        this.badIndexOffset = ReceiveRequest.SIZE + Math.max(maxSge, 1) * Sge.SIZE;
        this.list = ByteBuffer.allocateDirect(badIndexOffset + 8).order(ByteOrder.nativeOrder());
        this.address = MemoryUtils.getAddress(list);
    }

    /** The work request. */
    long address() {
        return address;
    }

    /** Where the post writes the index of the work request it refused. */
    long badIndexAddress() {
        return address + badIndexOffset;
    }

    /** Writes {@code receive} with work-request id {@code wrId}. */
    void write(WorkRequest receive, long wrId) {
        int written = 0;
        for (int i = 0; i < receive.segmentCount(); i++) {
            int length = receive.segmentLength(i);
            if (length > 0) {
                VerbsRegion region = (VerbsRegion) receive.region(i);
                int at = ReceiveRequest.SIZE + written++ * Sge.SIZE;
                list.putLong(at + Sge.ADDRESS, region.address() + receive.offset(i));
                list.putInt(at + Sge.LENGTH, length);
                list.putInt(at + Sge.LKEY, region.localKey());
            }
        }
        list.putLong(ReceiveRequest.WR_ID, wrId);
        list.putLong(ReceiveRequest.NEXT, 0);
        list.putLong(ReceiveRequest.SG_LIST, address + ReceiveRequest.SIZE);
        list.putInt(ReceiveRequest.NUM_SGE, written);
    }
}
