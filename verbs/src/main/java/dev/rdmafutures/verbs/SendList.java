package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.NativeLayout.SendRequest;
import dev.rdmafutures.verbs.NativeLayout.Sge;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One queue pair's reused native chain of {@code struct ibv_send_wr} with their {@code struct ibv_sge} array: the
 * READs, WRITEs, SENDs and window binds and invalidations of one duty cycle are appended in posting order and handed
 * to {@code NativeVerbs.postSend} as one chain, one doorbell, then the chain starts over. Sized once for as many
 * requests as the QP's initiator depth, which the core never exceeds: no allocation per operation.
 *
 * <p>Segments of length 0 carry nothing and are left out. A READ with more segments than the device scatters per
 * read ({@code max_sge_rd}: 1 on siw, whose iWARP Read Request names one sink) becomes a chain of reads over
 * consecutive remote ranges, one per group of segments: the last is signalled and carries the request's work-request
 * id, the others are unsignalled and carry its part id, so only a failure of theirs reaches the CQ. A READ without
 * bytes still names one empty sink segment in a registered region, as iWARP requires.
 *
 * <p>With {@code shortCrossings} (siw), a payload of at most {@value #SHORT_PAYLOAD} bytes never crosses a 4 KiB
 * page boundary inside one segment: siw (Linux 6.1, {@code siw_try_1seg}) copies such a one-segment payload into its
 * packet from the wrong places (the bytes behind the first page, then the second page from its start), both when it
 * sends ours and when it answers a peer's READ. So a short WRITE or SEND whose one segment crosses a page becomes two
 * segments, and a READ segment that is short and whose remote range crosses one is read in two, each answered apart.
 * Poller thread only.
 */
final class SendList {
    /** The longest payload siw copies through {@code siw_try_1seg} ({@code MAX_HDR_INLINE} is 32 in 6.1), and more. */
    static final int SHORT_PAYLOAD = 64;
    private static final long PAGE = 4096;
    private final ByteBuffer list;
    private final long address;
    private final int maxReadSge;
    private final VerbsRegion emptySink;
    private final boolean shortCrossings;
    private final int sgeBase;
    private final int badIndexOffset;
    /** The index of each appended request's first work request. */
    private final int[] starts;
    private int requests;
    private int workRequests;
    private int sges;

    /**
     * Room for {@code capacity} requests of up to {@code maxSge} segments each, a READ split into up to
     * {@link #parts(int, int, boolean) parts(segments(maxSge, shortCrossings), maxReadSge, windows)} work requests;
     * {@code emptySink} is a READ without bytes' sink; {@code shortCrossings}: cut short payloads at page boundaries,
     * as siw needs; {@code windows}: the device binds memory windows.
     */
    SendList(int capacity, int maxSge, int maxReadSge, VerbsRegion emptySink, boolean shortCrossings,
             boolean windows) {
        this.maxReadSge = maxReadSge;
        this.emptySink = emptySink;
        this.shortCrossings = shortCrossings;
        int segments = Math.max(segments(maxSge, shortCrossings), 1);
        this.starts = new int[capacity];
        this.sgeBase = capacity * parts(segments, maxReadSge, windows) * SendRequest.SIZE;
        this.badIndexOffset = sgeBase + capacity * segments * Sge.SIZE;
        this.list = ByteBuffer.allocateDirect(badIndexOffset + 8).order(ByteOrder.nativeOrder());
        this.address = MemoryUtils.getAddress(list);
    }

    /** How many {@code ibv_sge}s a request of {@code maxSge} segments takes at most. */
    static int segments(int maxSge, boolean shortCrossings) {
        return shortCrossings ? 2 * maxSge : maxSge;
    }

    /**
     * How many work requests one request takes at most: a READ of {@code segments} segments, at least 1, and 2 where
     * the device binds {@code windows} (a bind of a window the device holds bound invalidates it first).
     */
    static int parts(int segments, int maxReadSge, boolean windows) {
        return Math.max(windows ? 2 : 1, (segments + maxReadSge - 1) / maxReadSge);
    }

    /** The first work request of the chain, for {@code postSend}. */
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

    /** Whether nothing was appended since the chain started over. */
    boolean isEmpty() {
        return requests == 0;
    }

    /** How many requests were appended since the chain started over. */
    int requests() {
        return requests;
    }

    /** The index of the request work request {@code index} belongs to. */
    int requestAt(int index) {
        int request = requests - 1;
        while (request > 0 && starts[request] > index) {
            request--;
        }
        return request;
    }

    /** The index of request {@code request}'s first work request. */
    int start(int request) {
        return starts[request];
    }

    /** Starts the chain over, once it was posted or given up. */
    void clear() {
        requests = 0;
        workRequests = 0;
        sges = 0;
    }

    /** Begins the next request: the last work request so far now leads to it. */
    private int append() {
        if (workRequests > 0) {
            list.putLong((workRequests - 1) * SendRequest.SIZE + SendRequest.NEXT,
                    address + (long) workRequests * SendRequest.SIZE);
        }
        starts[requests++] = workRequests;
        return workRequests;
    }

    /**
     * Appends {@code request} (not a RECEIVE): returns how many work requests it took, all but the last carrying
     * {@code partId}, the last {@code wrId}.
     */
    int write(WorkRequest request, long wrId, long partId) {
        boolean read = request.kind() == WorkRequest.Kind.READ;
        int first = sges;
        int end = writeSegments(request, first);
        if (shortCrossings && end > first) {
            end = cutShortCrossing(request, read, first, end);
        }
        if (read && end == first) {
            putSge(end++, emptySink.address(), 0, emptySink.localKey());
        }
        int segments = end - first;
        int perRequest = read ? maxReadSge : Math.max(segments, 1);
        int parts = read ? parts(segments, maxReadSge, false) : 1;
        int opcode = switch (request.kind()) {
            case READ -> SendRequest.RDMA_READ;
            case WRITE -> SendRequest.RDMA_WRITE;
            case SEND -> SendRequest.SEND;
            case SEND_INVALIDATE -> SendRequest.SEND_WITH_INV;
            case RECEIVE, BIND_WINDOW, INVALIDATE_WINDOW, FAST_REGISTER -> throw new IllegalArgumentException(
                    request.kind() + " is not a READ, WRITE or SEND");
        };
        int fence = request.has(WorkRequest.READ_FENCE) ? SendRequest.FENCE : 0;
        long remote = request.remoteAddress();
        int index = append();
        for (int i = 0; i < parts; i++) {
            boolean last = i == parts - 1;
            int from = first + i * perRequest;
            int count = Math.min(perRequest, end - from);
            int at = (index + i) * SendRequest.SIZE;
            list.putLong(at + SendRequest.WR_ID, last ? wrId : partId);
            list.putLong(at + SendRequest.NEXT, last ? 0 : address + at + SendRequest.SIZE);
            list.putLong(at + SendRequest.SG_LIST, address + sgeBase + (long) from * Sge.SIZE);
            list.putInt(at + SendRequest.NUM_SGE, count);
            list.putInt(at + SendRequest.OPCODE, opcode);
            list.putInt(at + SendRequest.SEND_FLAGS, (last ? SendRequest.SIGNALED : 0) | (i == 0 ? fence : 0));
            list.putInt(at + SendRequest.INVALIDATE_RKEY,
                    request.kind() == WorkRequest.Kind.SEND_INVALIDATE ? request.remoteToken() : 0);
            list.putLong(at + SendRequest.REMOTE_ADDRESS, remote);
            list.putInt(at + SendRequest.RKEY, request.remoteToken());
            for (int s = from; s < from + count; s++) {
                remote += Integer.toUnsignedLong(sgeLength(s));
            }
        }
        workRequests += parts;
        sges = end;
        return parts;
    }

    /**
     * Appends a type-2 window bind under {@code wrId}: window {@code mw}, whose current rkey is {@code rkey}, gets
     * {@code next} over {@code length} bytes at {@code base} of region {@code mr} with {@code access}. With
     * {@code invalidateFirst} (the device holds it bound, and binds only a free one) a local invalidation of
     * {@code rkey} under {@code partId} comes first, unsignalled. The device runs them in order.
     */
    void writeBind(long wrId, long partId, boolean invalidateFirst, long mw, int rkey, int next, long mr, long base,
                   int length, int access) {
        int at = append() * SendRequest.SIZE;
        if (invalidateFirst) {
            writeLocal(at, partId, SendRequest.LOCAL_INV, 0, rkey, true);
            at += SendRequest.SIZE;
            workRequests++;
        }
        writeLocal(at, wrId, SendRequest.BIND_MW, SendRequest.SIGNALED, 0, false);
        list.putLong(at + SendRequest.BIND_MW_WINDOW, mw);
        list.putInt(at + SendRequest.BIND_MW_RKEY, next);
        list.putLong(at + SendRequest.BIND_MW_REGION, mr);
        list.putLong(at + SendRequest.BIND_MW_ADDRESS, base);
        list.putLong(at + SendRequest.BIND_MW_LENGTH, Integer.toUnsignedLong(length));
        list.putInt(at + SendRequest.BIND_MW_ACCESS, access);
        workRequests++;
    }

    /** Appends a signalled local invalidation of window rkey {@code rkey} under {@code wrId}. */
    void writeInvalidate(long wrId, int rkey) {
        writeLocal(append() * SendRequest.SIZE, wrId, SendRequest.LOCAL_INV, SendRequest.SIGNALED, rkey, false);
        workRequests++;
    }

    /** A work request without segments at byte {@code at}, the last of the chain unless {@code more}. */
    private void writeLocal(int at, long wrId, int opcode, int flags, int invalidateRkey, boolean more) {
        list.putLong(at + SendRequest.WR_ID, wrId);
        list.putLong(at + SendRequest.NEXT, more ? address + at + SendRequest.SIZE : 0);
        list.putLong(at + SendRequest.SG_LIST, 0);
        list.putInt(at + SendRequest.NUM_SGE, 0);
        list.putInt(at + SendRequest.OPCODE, opcode);
        list.putInt(at + SendRequest.SEND_FLAGS, flags);
        list.putInt(at + SendRequest.INVALIDATE_RKEY, invalidateRkey);
        list.putLong(at + SendRequest.REMOTE_ADDRESS, 0);
        list.putInt(at + SendRequest.RKEY, 0);
    }

    /** Writes the request's non-empty segments into the SGE array from index {@code first}; returns the end. */
    private int writeSegments(WorkRequest request, int first) {
        int end = first;
        for (int i = 0; i < request.segmentCount(); i++) {
            int length = request.segmentLength(i);
            if (length > 0) {
                VerbsRegion region = (VerbsRegion) request.region(i);
                putSge(end++, region.address() + request.offset(i), length, region.localKey());
            }
        }
        return end;
    }

    /**
     * The request's SGEs, {@code first} to {@code end}, with short payloads' page crossings cut (see the class
     * comment): for a READ, every segment (siw reads each into its own sink, with its own request) whose remote range
     * crosses; else the one segment, if it does. Returns the new end.
     */
    private int cutShortCrossing(WorkRequest request, boolean read, int first, int end) {
        if (!read) {
            return end - first == 1 ? cutIfCrossing(first, sgeAddress(first), end) : end;
        }
        long remote = request.remoteAddress();
        for (int i = first; i < end; i++) {
            int length = sgeLength(i);
            int cut = cutIfCrossing(i, remote, end);
            if (cut > end) {
                end = cut;
                i++; // the second half starts on the next page
            }
            remote += length;
        }
        return end;
    }

    /**
     * Cuts segment {@code index} where {@code address}, the address its bytes start at, reaches a page boundary, if
     * it is short and does; returns the new end of the SGEs, {@code end} before.
     */
    private int cutIfCrossing(int index, long address, int end) {
        int length = sgeLength(index);
        int head = (int) (PAGE - (address & (PAGE - 1)));
        if (length > SHORT_PAYLOAD || head >= length) {
            return end;
        }
        for (int j = end; j > index + 1; j--) {
            putSge(j, sgeAddress(j - 1), sgeLength(j - 1), sgeKey(j - 1));
        }
        putSge(index + 1, sgeAddress(index) + head, length - head, sgeKey(index));
        putSge(index, sgeAddress(index), head, sgeKey(index));
        return end + 1;
    }

    private long sgeAddress(int index) {
        return list.getLong(sgeBase + index * Sge.SIZE + Sge.ADDRESS);
    }

    private int sgeLength(int index) {
        return list.getInt(sgeBase + index * Sge.SIZE + Sge.LENGTH);
    }

    private int sgeKey(int index) {
        return list.getInt(sgeBase + index * Sge.SIZE + Sge.LKEY);
    }

    private void putSge(int index, long sgeAddress, int length, int localKey) {
        int at = sgeBase + index * Sge.SIZE;
        list.putLong(at + Sge.ADDRESS, sgeAddress);
        list.putInt(at + Sge.LENGTH, length);
        list.putInt(at + Sge.LKEY, localKey);
    }
}
