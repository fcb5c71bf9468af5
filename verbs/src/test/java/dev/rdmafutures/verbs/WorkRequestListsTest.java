package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.ibm.disni.verbs.IbvMr;
import dev.rdmafutures.Access;
import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkCompletion;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.NativeLayout.ReceiveRequest;
import dev.rdmafutures.verbs.NativeLayout.SendRequest;
import dev.rdmafutures.verbs.NativeLayout.Sge;
import dev.rdmafutures.verbs.jni.NativeLibrary;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The native work-request chains the verbs provider posts, read back byte by byte on a host without RDMA devices:
 * segments in order with empty ones left out, a READ split where the device scatters fewer segments per read, and
 * the empty segment of READs and receives without bytes. Regions are described, not registered (no device needed).
 */
class WorkRequestListsTest {
    private static final long WR_ID = 0x1234L;
    private static final long PART_ID = 0x5678L;
    private static final long REMOTE = 0x7000_0000_0000L;
    private static final int TOKEN = 0x4242;
    private static final int DEPTH = 4;

    private VerbsRegion a;
    private VerbsRegion b;
    private VerbsRegion sink;

    @BeforeEach
    void regions() throws Exception {
        assumeThat(NativeLibrary.ensureLoaded()).as("libdisni.so is needed for DiSNI's IbvMr").isEmpty();
        a = region(0x10_0000L, 4096, 0x11);
        b = region(0x20_0000L, 4096, 0x22);
        sink = region(0x30_0000L, 8, 0x33);
    }

    private static VerbsRegion region(long address, int length, int key) throws Exception {
        IbvMr mr = new IbvMr(null, address, length, IbvMr.IBV_ACCESS_LOCAL_WRITE, key, key + 1, 0);
        return new VerbsRegion(mr, address + 1, ByteBuffer.allocateDirect(1), Set.of(Access.LOCAL_WRITE), null,
                new TokenRetirements(), (w, e) -> { });
    }

    /** A request as the core hands it over: segments (region, offset, length). */
    private record Request(Kind kind, List<Segment> segments, int flags, long remoteAddress) implements WorkRequest {
        Request(Kind kind, List<Segment> segments, int flags) {
            this(kind, segments, flags, REMOTE);
        }

        @Override
        public int segmentCount() {
            return segments.size();
        }

        @Override
        public ProviderRegion region(int index) {
            return segments.get(index).region();
        }

        @Override
        public int offset(int index) {
            return segments.get(index).offset();
        }

        @Override
        public int segmentLength(int index) {
            return segments.get(index).length();
        }

        @Override
        public int length() {
            return segments.stream().mapToInt(Segment::length).sum();
        }

        @Override
        public int remoteToken() {
            return TOKEN;
        }

        @Override
        public ProviderWindow window() {
            return null;
        }

        @Override
        public WorkCompletion completion() {
            return null;
        }
    }

    private record Segment(VerbsRegion region, int offset, int length) {
    }

    private static ByteBuffer bytes(Object list) throws ReflectiveOperationException {
        Field field = list.getClass().getDeclaredField("list");
        field.setAccessible(true);
        return (ByteBuffer) field.get(list);
    }

    /** The SGEs work request {@code index} of {@code list} names, each as {address, length, key}. */
    private static long[][] sges(SendList list, ByteBuffer wrs, int index) {
        int at = index * SendRequest.SIZE;
        int count = wrs.getInt(at + SendRequest.NUM_SGE);
        int first = (int) (wrs.getLong(at + SendRequest.SG_LIST) - list.address());
        long[][] sges = new long[count][];
        for (int i = 0; i < count; i++) {
            int sge = first + i * Sge.SIZE;
            sges[i] = new long[] {wrs.getLong(sge + Sge.ADDRESS), wrs.getInt(sge + Sge.LENGTH), wrs.getInt(sge + Sge.LKEY)};
        }
        return sges;
    }

    @Test
    void aWriteGathersItsNonEmptySegmentsInOrderIntoOneSignalledRequest() throws Exception {
        SendList list = new SendList(DEPTH, 4, 1, sink, false, false);
        Request write = new Request(WorkRequest.Kind.WRITE,
                List.of(new Segment(a, 3, 100), new Segment(b, 0, 0), new Segment(b, 5, 7)), 0);
        assertThat(list.write(write, WR_ID, PART_ID)).isOne();
        ByteBuffer wrs = bytes(list);
        assertThat(wrs.getLong(SendRequest.WR_ID)).isEqualTo(WR_ID);
        assertThat(wrs.getLong(SendRequest.NEXT)).isZero();
        assertThat(wrs.getInt(SendRequest.OPCODE)).isEqualTo(SendRequest.RDMA_WRITE);
        assertThat(wrs.getInt(SendRequest.SEND_FLAGS)).isEqualTo(SendRequest.SIGNALED);
        assertThat(wrs.getLong(SendRequest.REMOTE_ADDRESS)).isEqualTo(REMOTE);
        assertThat(wrs.getInt(SendRequest.RKEY)).isEqualTo(TOKEN);
        assertThat(sges(list, wrs, 0)).isDeepEqualTo(new long[][] {
                new long[] {0x10_0000L + 3, 100, 0x11}, new long[] {0x20_0000L + 5, 7, 0x22}});
    }

    @Test
    void aReadWithMoreSegmentsThanTheDeviceScattersBecomesAChainOverConsecutiveRemoteRanges() throws Exception {
        SendList list = new SendList(DEPTH, 4, 2, sink, false, false);
        Request read = new Request(WorkRequest.Kind.READ, List.of(new Segment(a, 0, 10), new Segment(b, 1, 20),
                new Segment(a, 100, 30)), WorkRequest.READ_FENCE);
        assertThat(list.write(read, WR_ID, PART_ID)).isEqualTo(2);
        ByteBuffer wrs = bytes(list);
        // The first part: two segments, fenced, unsignalled, with the part id, chained to the second.
        assertThat(wrs.getLong(SendRequest.WR_ID)).isEqualTo(PART_ID);
        assertThat(wrs.getLong(SendRequest.NEXT)).isEqualTo(list.address() + SendRequest.SIZE);
        assertThat(wrs.getInt(SendRequest.SEND_FLAGS)).isEqualTo(SendRequest.FENCE);
        assertThat(wrs.getLong(SendRequest.REMOTE_ADDRESS)).isEqualTo(REMOTE);
        assertThat(sges(list, wrs, 0)).isDeepEqualTo(new long[][] {
                new long[] {0x10_0000L, 10, 0x11}, new long[] {0x20_0000L + 1, 20, 0x22}});
        // The last: the rest of the remote range, signalled, with the request's id.
        int last = SendRequest.SIZE;
        assertThat(wrs.getLong(last + SendRequest.WR_ID)).isEqualTo(WR_ID);
        assertThat(wrs.getLong(last + SendRequest.NEXT)).isZero();
        assertThat(wrs.getInt(last + SendRequest.OPCODE)).isEqualTo(SendRequest.RDMA_READ);
        assertThat(wrs.getInt(last + SendRequest.SEND_FLAGS)).isEqualTo(SendRequest.SIGNALED);
        assertThat(wrs.getLong(last + SendRequest.REMOTE_ADDRESS)).isEqualTo(REMOTE + 30);
        assertThat(wrs.getInt(last + SendRequest.RKEY)).isEqualTo(TOKEN);
        assertThat(sges(list, wrs, 1)).isDeepEqualTo(new long[][] {new long[] {0x10_0000L + 100, 30, 0x11}});
    }

    @Test
    void aReadWithoutBytesNamesOneEmptySegmentAndASendNone() throws Exception {
        SendList list = new SendList(DEPTH, 1, 1, sink, false, false);
        assertThat(list.write(new Request(WorkRequest.Kind.READ, List.of(), 0), WR_ID, PART_ID)).isOne();
        ByteBuffer wrs = bytes(list);
        assertThat(sges(list, wrs, 0)).isDeepEqualTo(new long[][] {new long[] {0x30_0000L, 0, 0x33}});
        list.clear();
        assertThat(list.write(new Request(WorkRequest.Kind.SEND, List.of(new Segment(a, 9, 0)), 0), WR_ID, PART_ID))
                .isOne();
        assertThat(wrs.getInt(SendRequest.NUM_SGE)).isZero();
        assertThat(wrs.getInt(SendRequest.OPCODE)).isEqualTo(SendRequest.SEND);
    }

    @Test
    void aSendAndInvalidateCarriesTheTokenToInvalidate() throws Exception {
        SendList list = new SendList(DEPTH, 1, 1, sink, false, false);
        list.write(new Request(WorkRequest.Kind.SEND_INVALIDATE, List.of(new Segment(a, 0, 8)), 0), WR_ID, PART_ID);
        ByteBuffer wrs = bytes(list);
        assertThat(wrs.getInt(SendRequest.OPCODE)).isEqualTo(SendRequest.SEND_WITH_INV);
        assertThat(wrs.getInt(SendRequest.INVALIDATE_RKEY)).isEqualTo(TOKEN);
    }

    @Test
    void aWindowBindOfAWindowTheDeviceHoldsBoundInvalidatesItFirstInTheSameChain() throws Exception {
        SendList list = new SendList(DEPTH, 1, 1, sink, false, true);
        int rkey = 0x1234_56FF;
        int next = 0x1234_5600;
        list.writeBind(WR_ID, PART_ID, true, 0xABCD_0000L, rkey, next, 0x9999L, 0x10_0000L + 64, 128,
                IbvMr.IBV_ACCESS_REMOTE_READ);
        ByteBuffer wrs = bytes(list);
        // The invalidation: unsignalled, with the part id, of the rkey the device holds, chained to the bind.
        assertThat(wrs.getLong(SendRequest.WR_ID)).isEqualTo(PART_ID);
        assertThat(wrs.getLong(SendRequest.NEXT)).isEqualTo(list.address() + SendRequest.SIZE);
        assertThat(wrs.getInt(SendRequest.OPCODE)).isEqualTo(SendRequest.LOCAL_INV);
        assertThat(wrs.getInt(SendRequest.SEND_FLAGS)).isZero();
        assertThat(wrs.getInt(SendRequest.INVALIDATE_RKEY)).isEqualTo(rkey);
        assertThat(wrs.getInt(SendRequest.NUM_SGE)).isZero();
        // The bind: signalled, with the request's id, naming window, new rkey, region, span and rights.
        int bind = SendRequest.SIZE;
        assertThat(wrs.getLong(bind + SendRequest.WR_ID)).isEqualTo(WR_ID);
        assertThat(wrs.getLong(bind + SendRequest.NEXT)).isZero();
        assertThat(wrs.getInt(bind + SendRequest.OPCODE)).isEqualTo(SendRequest.BIND_MW);
        assertThat(wrs.getInt(bind + SendRequest.SEND_FLAGS)).isEqualTo(SendRequest.SIGNALED);
        assertThat(wrs.getInt(bind + SendRequest.NUM_SGE)).isZero();
        assertThat(wrs.getLong(bind + SendRequest.BIND_MW_WINDOW)).isEqualTo(0xABCD_0000L);
        assertThat(wrs.getInt(bind + SendRequest.BIND_MW_RKEY)).isEqualTo(next);
        assertThat(wrs.getLong(bind + SendRequest.BIND_MW_REGION)).isEqualTo(0x9999L);
        assertThat(wrs.getLong(bind + SendRequest.BIND_MW_ADDRESS)).isEqualTo(0x10_0000L + 64);
        assertThat(wrs.getLong(bind + SendRequest.BIND_MW_LENGTH)).isEqualTo(128);
        assertThat(wrs.getInt(bind + SendRequest.BIND_MW_ACCESS)).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_READ);
        // A free window's bind is the one request; an invalidation is one signalled request.
        list.clear();
        list.writeBind(WR_ID, PART_ID, false, 0xABCD_0000L, next, next + 1, 0x9999L, 0x10_0000L, 8,
                IbvMr.IBV_ACCESS_REMOTE_WRITE);
        assertThat(wrs.getLong(SendRequest.WR_ID)).isEqualTo(WR_ID);
        assertThat(wrs.getLong(SendRequest.NEXT)).isZero();
        assertThat(wrs.getInt(SendRequest.OPCODE)).isEqualTo(SendRequest.BIND_MW);
        list.clear();
        list.writeInvalidate(WR_ID, next + 1);
        assertThat(wrs.getInt(SendRequest.OPCODE)).isEqualTo(SendRequest.LOCAL_INV);
        assertThat(wrs.getInt(SendRequest.SEND_FLAGS)).isEqualTo(SendRequest.SIGNALED);
        assertThat(wrs.getInt(SendRequest.INVALIDATE_RKEY)).isEqualTo(next + 1);
        assertThat(wrs.getLong(SendRequest.NEXT)).isZero();
    }

    @Test
    void aReceiveScattersOverItsNonEmptySegmentsAndOneWithoutBytesNamesTheEmptySegment() throws Exception {
        ReceiveList list = new ReceiveList(DEPTH, 3, sink);
        ByteBuffer wr = bytes(list);
        list.write(new Request(WorkRequest.Kind.RECEIVE, List.of(new Segment(b, 4, 0), new Segment(b, 8, 16),
                new Segment(a, 1, 2)), 0), WR_ID);
        assertThat(wr.getLong(ReceiveRequest.WR_ID)).isEqualTo(WR_ID);
        assertThat(wr.getLong(ReceiveRequest.NEXT)).isZero();
        assertThat(wr.getInt(ReceiveRequest.NUM_SGE)).isEqualTo(2);
        int sge = (int) (wr.getLong(ReceiveRequest.SG_LIST) - list.address());
        assertThat(wr.getLong(sge + Sge.ADDRESS)).isEqualTo(0x20_0000L + 8);
        assertThat(wr.getInt(sge + Sge.SIZE + Sge.LKEY)).isEqualTo(0x11);
        list.clear();
        list.write(new Request(WorkRequest.Kind.RECEIVE, List.of(), 0), WR_ID);
        assertThat(wr.getInt(ReceiveRequest.NUM_SGE)).isOne();
        assertThat(wr.getLong(sge + Sge.ADDRESS)).isEqualTo(0x30_0000L);
        assertThat(wr.getInt(sge + Sge.LENGTH)).isZero();
    }

    @Test
    void aDutyCyclesReceivesFormOneChainInPostingOrder() throws Exception {
        ReceiveList list = new ReceiveList(DEPTH, 2, sink);
        ByteBuffer wr = bytes(list);
        for (int i = 0; i < DEPTH; i++) {
            list.write(new Request(WorkRequest.Kind.RECEIVE, List.of(new Segment(a, 100 * i, 10),
                    new Segment(b, 100 * i, 20)), 0), WR_ID + i);
        }
        assertThat(list.size()).isEqualTo(DEPTH);
        for (int i = 0; i < DEPTH; i++) {
            int at = i * ReceiveRequest.SIZE;
            assertThat(list.wrId(i)).isEqualTo(WR_ID + i);
            assertThat(wr.getLong(at + ReceiveRequest.NEXT))
                    .isEqualTo(i < DEPTH - 1 ? list.address() + at + ReceiveRequest.SIZE : 0);
            int sge = (int) (wr.getLong(at + ReceiveRequest.SG_LIST) - list.address());
            assertThat(wr.getLong(sge + Sge.ADDRESS)).isEqualTo(0x10_0000L + 100 * i);
            assertThat(wr.getLong(sge + Sge.SIZE + Sge.ADDRESS)).isEqualTo(0x20_0000L + 100 * i);
        }
        int badIndex = (int) (list.badIndexAddress() - list.address());
        assertThat(wr.getInt(badIndex)).as("the last segment ends before the bad index").isZero();
    }

    @Test
    void aDutyCyclesSendsFormOneChainInPostingOrderEachRequestKnowingItsWorkRequests() throws Exception {
        SendList list = new SendList(3, 2, 1, sink, true, true);
        ByteBuffer wrs = bytes(list);
        int badIndex = (int) (list.badIndexAddress() - list.address());
        wrs.putInt(badIndex, -1);
        // A READ of two short segments, the first crossing a page on siw (three reads), a WRITE, then a window bind
        // that invalidates first.
        long remote = REMOTE + 4096 - 4;
        Request read = new Request(WorkRequest.Kind.READ, List.of(new Segment(a, 0, 8), new Segment(b, 0, 8)), 0,
                remote);
        assertThat(list.write(read, WR_ID, PART_ID)).isEqualTo(3);
        assertThat(list.write(new Request(WorkRequest.Kind.WRITE, List.of(new Segment(a, 64, 32)), 0), WR_ID + 1,
                PART_ID + 1)).isOne();
        list.writeBind(WR_ID + 2, PART_ID + 2, true, 0xABCD_0000L, 0x100, 0x101, 0x9999L, 0x10_0000L, 8, 0);
        assertThat(list.requests()).isEqualTo(3);
        long[] ids = {PART_ID, PART_ID, WR_ID, WR_ID + 1, PART_ID + 2, WR_ID + 2};
        for (int i = 0; i < ids.length; i++) {
            int at = i * SendRequest.SIZE;
            assertThat(wrs.getLong(at + SendRequest.WR_ID)).as("work request %d", i).isEqualTo(ids[i]);
            assertThat(wrs.getLong(at + SendRequest.NEXT)).as("work request %d", i)
                    .isEqualTo(i < ids.length - 1 ? list.address() + at + SendRequest.SIZE : 0);
        }
        assertThat(sges(list, wrs, 2)).isDeepEqualTo(new long[][] {new long[] {0x20_0000L, 8, 0x22}});
        assertThat(sges(list, wrs, 3)).isDeepEqualTo(new long[][] {new long[] {0x10_0000L + 64, 32, 0x11}});
        assertThat(wrs.getInt(badIndex)).as("the segments end before the bad index").isEqualTo(-1);
        // Which request a refused work request belongs to, and where that request starts.
        assertThat(list.requestAt(0)).isZero();
        assertThat(list.requestAt(2)).isZero();
        assertThat(list.requestAt(3)).isOne();
        assertThat(list.requestAt(5)).isEqualTo(2);
        assertThat(list.start(2)).isEqualTo(4);
        // Posted: the next cycle's chain starts over.
        list.clear();
        assertThat(list.isEmpty()).isTrue();
        list.writeInvalidate(WR_ID, 0x101);
        assertThat(wrs.getLong(SendRequest.WR_ID)).isEqualTo(WR_ID);
        assertThat(wrs.getLong(SendRequest.NEXT)).isZero();
    }

    @Test
    void onSiwAShortOneSegmentWriteThatCrossesAPageBecomesTwoSegments() throws Exception {
        SendList list = new SendList(DEPTH, 1, 1, sink, true, false);
        list.write(new Request(WorkRequest.Kind.WRITE, List.of(new Segment(a, 4090, 20)), 0), WR_ID, PART_ID);
        ByteBuffer wrs = bytes(list);
        assertThat(sges(list, wrs, 0)).isDeepEqualTo(new long[][] {
                new long[] {0x10_0000L + 4090, 6, 0x11}, new long[] {0x10_0000L + 4096, 14, 0x11}});
        // Longer than siw copies that way, or already in two segments: as they are.
        list.clear();
        list.write(new Request(WorkRequest.Kind.SEND, List.of(new Segment(a, 4090, 100)), 0), WR_ID, PART_ID);
        assertThat(sges(list, wrs, 0)).isDeepEqualTo(new long[][] {new long[] {0x10_0000L + 4090, 100, 0x11}});
        SendList two = new SendList(DEPTH, 2, 1, sink, true, false);
        two.write(new Request(WorkRequest.Kind.SEND, List.of(new Segment(a, 4090, 20), new Segment(b, 0, 4)), 0),
                WR_ID, PART_ID);
        assertThat(sges(two, bytes(two), 0)).hasNumberOfRows(2);
    }

    @Test
    void onSiwAShortReadSegmentWhoseRemoteRangeCrossesAPageIsReadInTwo() throws Exception {
        SendList list = new SendList(DEPTH, 3, 1, sink, true, false);
        long remote = REMOTE + 2 * 4096 - 8;
        // 10 bytes across the boundary (cut at 8), 14 short but within a page, 100 across the next one but long.
        Request read = new Request(WorkRequest.Kind.READ, List.of(new Segment(a, 0, 10), new Segment(b, 0, 14),
                new Segment(b, 100, 4096)), 0, remote);
        assertThat(list.write(read, WR_ID, PART_ID)).isEqualTo(4);
        ByteBuffer wrs = bytes(list);
        assertThat(sges(list, wrs, 0)).isDeepEqualTo(new long[][] {new long[] {0x10_0000L, 8, 0x11}});
        assertThat(sges(list, wrs, 1)).isDeepEqualTo(new long[][] {new long[] {0x10_0000L + 8, 2, 0x11}});
        assertThat(sges(list, wrs, 2)).isDeepEqualTo(new long[][] {new long[] {0x20_0000L, 14, 0x22}});
        assertThat(sges(list, wrs, 3)).isDeepEqualTo(new long[][] {new long[] {0x20_0000L + 100, 4096, 0x22}});
        assertThat(wrs.getLong(SendRequest.REMOTE_ADDRESS)).isEqualTo(remote);
        assertThat(wrs.getLong(SendRequest.SIZE + SendRequest.REMOTE_ADDRESS)).isEqualTo(REMOTE + 2 * 4096);
        assertThat(wrs.getLong(2 * SendRequest.SIZE + SendRequest.REMOTE_ADDRESS)).isEqualTo(REMOTE + 2 * 4096 + 2);
        assertThat(wrs.getLong(3 * SendRequest.SIZE + SendRequest.REMOTE_ADDRESS)).isEqualTo(REMOTE + 2 * 4096 + 16);
        assertThat(wrs.getLong(3 * SendRequest.SIZE + SendRequest.WR_ID)).isEqualTo(WR_ID);
    }

    @Test
    void theLibraryWasBuiltWithTheLayoutTheseListsUse() {
        NativeLayout.verify(); // throws NOT_SUPPORTED naming the first difference
    }
}
