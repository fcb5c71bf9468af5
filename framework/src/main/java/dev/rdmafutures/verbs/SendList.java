package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.NativeLayout.SendRequest;
import dev.rdmafutures.verbs.NativeLayout.Sge;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One queue pair's reused native {@code struct ibv_send_wr} chain and its {@code struct ibv_sge} array, written for
 * one READ, WRITE or SEND at a time and handed to {@code NativeVerbs.postSend}: no allocation per operation.
 *
 * <p>Segments of length 0 carry nothing and are left out. A READ with more segments than the device scatters per
 * read ({@code max_sge_rd}: 1 on siw, whose iWARP Read Request names one sink) becomes a chain of reads over
 * consecutive remote ranges, one per group of segments: the last is signalled and carries the request's work-request
 * id, the others are unsignalled and carry its part id, so only a failure of theirs reaches the CQ. A READ without
 * bytes still names one empty sink segment in a registered region, as iWARP requires. Poller thread only.
 */
final class SendList {
    private final ByteBuffer list;
    private final long address;
    private final int maxReadSge;
    private final VerbsRegion emptySink;
    private final int sgeBase;
    private final int badIndexOffset;

    /**
     * Room for requests of up to {@code maxSge} segments, a READ split into up to
     * {@link #parts(int, int) parts(maxSge, maxReadSge)} requests; {@code emptySink} is a READ without bytes' sink.
     */
    SendList(int maxSge, int maxReadSge, VerbsRegion emptySink) {
        this.maxReadSge = maxReadSge;
        this.emptySink = emptySink;
        int requests = parts(maxSge, maxReadSge);
        int segments = Math.max(maxSge, 1);
        this.sgeBase = requests * SendRequest.SIZE;
        this.badIndexOffset = sgeBase + segments * Sge.SIZE;
        this.list = ByteBuffer.allocateDirect(badIndexOffset + 8).order(ByteOrder.nativeOrder());
        this.address = MemoryUtils.getAddress(list);
    }

    /** How many work requests a READ of {@code segments} segments takes at most, at least 1. */
    static int parts(int segments, int maxReadSge) {
        return Math.max(1, (segments + maxReadSge - 1) / maxReadSge);
    }

    /** The first work request, for {@code postSend}. */
    long address() {
        return address;
    }

    /** Where {@code postSend} writes the index of the work request it refused. */
    long badIndexAddress() {
        return address + badIndexOffset;
    }

    /** The index {@code postSend} wrote on its last failure. */
    int badIndex() {
        return list.getInt(badIndexOffset);
    }

    /**
     * Writes {@code request} (not a RECEIVE): returns how many work requests it took, all but the last carrying
     * {@code partId}, the last {@code wrId}.
     */
    int write(WorkRequest request, long wrId, long partId) {
        int segments = writeSegments(request);
        boolean read = request.kind() == WorkRequest.Kind.READ;
        if (read && segments == 0) {
            putSge(0, emptySink.address(), 0, emptySink.localKey());
            segments = 1;
        }
        int perRequest = read ? maxReadSge : Math.max(segments, 1);
        int requests = read ? parts(segments, maxReadSge) : 1;
        int opcode = switch (request.kind()) {
            case READ -> SendRequest.RDMA_READ;
            case WRITE -> SendRequest.RDMA_WRITE;
            case SEND -> SendRequest.SEND;
            case SEND_INVALIDATE -> SendRequest.SEND_WITH_INV;
            case RECEIVE, BIND_WINDOW, INVALIDATE_WINDOW -> throw new IllegalArgumentException(request.kind()
                    + " is not a READ, WRITE or SEND");
        };
        int fence = request.has(WorkRequest.READ_FENCE) ? SendRequest.FENCE : 0;
        long remote = request.remoteAddress();
        for (int i = 0; i < requests; i++) {
            boolean last = i == requests - 1;
            int first = i * perRequest;
            int count = Math.min(perRequest, segments - first);
            int at = i * SendRequest.SIZE;
            list.putLong(at + SendRequest.WR_ID, last ? wrId : partId);
            list.putLong(at + SendRequest.NEXT, last ? 0 : address + at + SendRequest.SIZE);
            list.putLong(at + SendRequest.SG_LIST, address + sgeBase + (long) first * Sge.SIZE);
            list.putInt(at + SendRequest.NUM_SGE, count);
            list.putInt(at + SendRequest.OPCODE, opcode);
            list.putInt(at + SendRequest.SEND_FLAGS, (last ? SendRequest.SIGNALED : 0) | (i == 0 ? fence : 0));
            list.putInt(at + SendRequest.INVALIDATE_RKEY,
                    request.kind() == WorkRequest.Kind.SEND_INVALIDATE ? request.remoteToken() : 0);
            list.putLong(at + SendRequest.REMOTE_ADDRESS, remote);
            list.putInt(at + SendRequest.RKEY, request.remoteToken());
            for (int s = first; s < first + count; s++) {
                remote += Integer.toUnsignedLong(list.getInt(sgeBase + s * Sge.SIZE + Sge.LENGTH));
            }
        }
        return requests;
    }

    /** Writes the request's non-empty segments into the SGE array; returns how many. */
    private int writeSegments(WorkRequest request) {
        int written = 0;
        for (int i = 0; i < request.segmentCount(); i++) {
            int length = request.segmentLength(i);
            if (length > 0) {
                VerbsRegion region = (VerbsRegion) request.region(i);
                putSge(written++, region.address() + request.offset(i), length, region.localKey());
            }
        }
        return written;
    }

    private void putSge(int index, long sgeAddress, int length, int localKey) {
        int at = sgeBase + index * Sge.SIZE;
        list.putLong(at + Sge.ADDRESS, sgeAddress);
        list.putInt(at + Sge.LENGTH, length);
        list.putInt(at + Sge.LKEY, localKey);
    }
}
