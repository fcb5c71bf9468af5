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
 * are left out; a receive without bytes names one empty segment in a registered region, as siw takes a receive
 * without segments for none (a zero-length Send into it terminates the connection). Confined to its owner's thread
 * (or lock).
 */
final class ReceiveList {
    private final ByteBuffer list;
    private final long address;
    private final int badIndexOffset;
    private final VerbsRegion emptySink;

    /** Room for receives of up to {@code maxSge} segments; {@code emptySink} is a receive without bytes' segment. */
    ReceiveList(int maxSge, VerbsRegion emptySink) {
        this.emptySink = emptySink;
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
                putSge(written++, region.address() + receive.offset(i), length, region.localKey());
            }
        }
        if (written == 0) {
            putSge(written++, emptySink.address(), 0, emptySink.localKey());
        }
        list.putLong(ReceiveRequest.WR_ID, wrId);
        list.putLong(ReceiveRequest.NEXT, 0);
        list.putLong(ReceiveRequest.SG_LIST, address + ReceiveRequest.SIZE);
        list.putInt(ReceiveRequest.NUM_SGE, written);
    }

    private void putSge(int index, long sgeAddress, int length, int localKey) {
        int at = ReceiveRequest.SIZE + index * Sge.SIZE;
        list.putLong(at + Sge.ADDRESS, sgeAddress);
        list.putInt(at + Sge.LENGTH, length);
        list.putInt(at + Sge.LKEY, localKey);
    }
}
