package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.NativeLayout.ReceiveRequest;
import dev.rdmafutures.verbs.NativeLayout.Sge;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reused native chain of {@code struct ibv_recv_wr}, each with its own {@code struct ibv_sge} array: the receives
 * of one duty cycle are appended in posting order and handed to {@code NativeVerbs.postRecv} or {@code postSrqRecv}
 * as one chain, then the chain starts over. Sized once for as many receives as the queue's depth, which the core
 * never exceeds: no allocation per receive. Segments of length 0 are left out; a receive without bytes names one
 * empty segment in a registered region, as siw takes a receive without segments for none (a zero-length Send into it
 * terminates the connection). Confined to its owner's thread (or lock).
 */
final class ReceiveList {
    private final ByteBuffer list;
    private final long address;
    private final int maxSge;
    private final int sgeBase;
    private final int badIndexOffset;
    private final VerbsRegion emptySink;
    private int size;

    /**
     * Room for {@code capacity} receives of up to {@code maxSge} segments; {@code emptySink} is a receive without
     * bytes' segment.
     */
    ReceiveList(int capacity, int maxSge, VerbsRegion emptySink) {
        this.emptySink = emptySink;
        this.maxSge = Math.max(maxSge, 1);
        this.sgeBase = capacity * ReceiveRequest.SIZE;
        this.badIndexOffset = sgeBase + capacity * this.maxSge * Sge.SIZE;
        this.list = ByteBuffer.allocateDirect(badIndexOffset + 8).order(ByteOrder.nativeOrder());
        this.address = MemoryUtils.getAddress(list);
    }

    /** The first work request of the chain. */
    long address() {
        return address;
    }

    /** Where the post writes the index of the work request it refused. */
    long badIndexAddress() {
        return address + badIndexOffset;
    }

    /** The index the post wrote on its last failure. */
    int badIndex() {
        return list.getInt(badIndexOffset);
    }

    /** How many receives were appended since the chain started over. */
    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The work-request id of receive {@code index}. */
    long wrId(int index) {
        return list.getLong(index * ReceiveRequest.SIZE + ReceiveRequest.WR_ID);
    }

    /** Starts the chain over, once it was posted or given up. */
    void clear() {
        size = 0;
    }

    /** Appends {@code receive} with work-request id {@code wrId}. */
    void write(WorkRequest receive, long wrId) {
        int index = size++;
        int firstSge = index * maxSge;
        int written = 0;
        for (int i = 0; i < receive.segmentCount(); i++) {
            int length = receive.segmentLength(i);
            if (length > 0) {
                VerbsRegion region = (VerbsRegion) receive.region(i);
                putSge(firstSge + written++, region.address() + receive.offset(i), length, region.localKey());
            }
        }
        if (written == 0) {
            putSge(firstSge + written++, emptySink.address(), 0, emptySink.localKey());
        }
        int at = index * ReceiveRequest.SIZE;
        if (index > 0) {
            list.putLong(at - ReceiveRequest.SIZE + ReceiveRequest.NEXT, address + at);
        }
        list.putLong(at + ReceiveRequest.WR_ID, wrId);
        list.putLong(at + ReceiveRequest.NEXT, 0);
        list.putLong(at + ReceiveRequest.SG_LIST, address + sgeBase + (long) firstSge * Sge.SIZE);
        list.putInt(at + ReceiveRequest.NUM_SGE, written);
    }

    private void putSge(int index, long sgeAddress, int length, int localKey) {
        int at = sgeBase + index * Sge.SIZE;
        list.putLong(at + Sge.ADDRESS, sgeAddress);
        list.putInt(at + Sge.LENGTH, length);
        list.putInt(at + Sge.LKEY, localKey);
    }
}
