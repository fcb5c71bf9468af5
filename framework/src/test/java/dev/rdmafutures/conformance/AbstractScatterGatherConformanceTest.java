package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * Scatter-gather lists (NDK's SGE arrays) on every operation: 1..max segments at unaligned offsets over several
 * regions, bytes checked by checksum and bytes beside the segments untouched; limits refused at once with nothing
 * posted; the list copied at the post; RDMA_READ_LOCAL_INVALIDATE on the first segment.
 */
public abstract class AbstractScatterGatherConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
    /** Segments per operation the tests go up to, where the adapter allows that many. */
    private static final int MOST_SEGMENTS = 64;
    private static final byte UNTOUCHED = (byte) 0xA5;
    /** For posts expected to be refused, whose callback is never called. */
    private static final CompletionCallback IGNORED = new CompletionCallback() {
        @Override
        public void completed(long context, int bytes) {
        }

        @Override
        public void failed(long context, RdmaException error) {
        }
    };

    private final Random random = new Random(14);

    private MemoryRegion register(RdmaRuntime runtime, int size, Access... access) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            buffer.put(i, UNTOUCHED);
        }
        return closeLater(runtime.register(buffer, access));
    }

    private int initiatorSge() {
        return Math.min(MOST_SEGMENTS, Math.min(client.adapterInfo().maxInitiatorSge(),
                server.adapterInfo().maxInitiatorSge()));
    }

    private int receiveSge() {
        return Math.min(MOST_SEGMENTS, Math.min(client.adapterInfo().maxReceiveSge(),
                server.adapterInfo().maxReceiveSge()));
    }

    /** Both sides ask for {@code initiatorSge} and {@code receiveSge} segments per operation. */
    private Pair connect(int initiatorSegments, int receiveSegments) {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withMaxSge(initiatorSegments, receiveSegments).start();
        ConnectionRequest request = await(listener.next());
        RdmaConnection s = closeLater(await(request.withMaxSge(initiatorSegments, receiveSegments).accept()));
        return new Pair(closeLater(await(c)), s);
    }

    /**
     * {@code count} segments over three regions, in an order that revisits regions, each at an odd offset with its
     * own length (some of 1 byte), the segments of one region never overlapping.
     */
    private ScatterGatherList segments(List<MemoryRegion> regions, int count) {
        ScatterGatherList list = new ScatterGatherList(Math.max(1, count));
        int[] next = new int[regions.size()];
        for (int i = 0; i < count; i++) {
            int r = i % regions.size();
            int length = i % 5 == 0 ? 1 : 1 + random.nextInt(300);
            int offset = next[r] + 1 + random.nextInt(7); // gaps of untouched bytes between segments
            list.add(regions.get(r), offset, length);
            next[r] = offset + length;
        }
        return list;
    }

    private static List<MemoryRegion> three(IntFunction<MemoryRegion> factory, int size) {
        return List.of(factory.apply(size), factory.apply(size), factory.apply(size));
    }

    private static byte[] gather(ScatterGatherList list) {
        byte[] bytes = new byte[list.totalLength()];
        int at = 0;
        for (int i = 0; i < list.size(); i++) {
            list.region(i).buffer().get(list.offset(i), bytes, at, list.length(i));
            at += list.length(i);
        }
        return bytes;
    }

    /** Posts a receive and returns once it is posted ({@link #awaitPosted}). */
    private static CompletableFuture<Completion> postedReceive(RdmaConnection receiver, ScatterGatherList into,
                                                               MemoryRegion own, MemoryRegion senderRegion) {
        CompletableFuture<Completion> received = receiver.receive(into);
        awaitPosted(receiver, own, senderRegion);
        return received;
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    private void fillRandom(MemoryRegion region) {
        byte[] bytes = new byte[region.length()];
        random.nextBytes(bytes);
        region.buffer().put(0, bytes);
    }

    /** Every byte of {@code regions} outside the list's segments still holds {@link #UNTOUCHED}. */
    private static void assertOnlySegmentsTouched(List<MemoryRegion> regions, ScatterGatherList list) {
        for (MemoryRegion region : regions) {
            boolean[] inSegment = new boolean[region.length()];
            for (int i = 0; i < list.size(); i++) {
                if (list.region(i) == region) {
                    for (int b = list.offset(i); b < list.offset(i) + list.length(i); b++) {
                        inSegment[b] = true;
                    }
                }
            }
            for (int b = 0; b < region.length(); b++) {
                if (!inSegment[b]) {
                    assertThat(region.buffer().get(b)).as("byte %d beside the segments", b).isEqualTo(UNTOUCHED);
                }
            }
        }
    }

    @Test
    void theAdapterReportsItsMaximaAndConnectionsGetWhatTheyAskCapped() {
        AdapterInfo adapter = client.adapterInfo();
        assertThat(adapter.maxInitiatorSge()).isPositive();
        assertThat(adapter.maxReceiveSge()).isPositive();
        Pair capped = connect(Integer.MAX_VALUE, Integer.MAX_VALUE);
        assertThat(capped.client().queueDepths().initiatorSge()).isEqualTo(adapter.maxInitiatorSge());
        assertThat(capped.client().queueDepths().receiveSge()).isEqualTo(adapter.maxReceiveSge());
        Pair small = connect(1, 1);
        assertThat(small.client().queueDepths()).isEqualTo(QueueDepths.DEFAULT.withMaxSge(1, 1)
                .cappedTo(adapter));
        assertThat(small.server().queueDepths().initiatorSge()).isEqualTo(1);
    }

    @Test
    void aReadScattersIntoEverySegmentFromOneToTheMaximum() {
        int max = initiatorSge();
        Pair pair = connect(max, 1);
        MemoryRegion source = register(server, 64 * 1024, ALL);
        fillRandom(source);
        for (int n = 1; n <= max; n++) {
            List<MemoryRegion> sinks = three(size -> register(client, size, ALL), 32 * 1024);
            ScatterGatherList list = segments(sinks, n);
            int remoteOffset = 3 + n;
            Completion done = await(pair.client().read(list, source.remote(), remoteOffset, OperationFlags.NONE));
            assertThat(done.bytes()).isEqualTo(list.totalLength());
            byte[] expected = new byte[list.totalLength()];
            source.buffer().get(remoteOffset, expected);
            assertThat(crc(gather(list))).as("%d segments", n).isEqualTo(crc(expected));
            assertOnlySegmentsTouched(sinks, list);
            sinks.forEach(MemoryRegion::close);
        }
    }

    @Test
    void aWriteGathersEverySegmentInOrderFromOneToTheMaximum() {
        int max = initiatorSge();
        Pair pair = connect(max, 1);
        for (int n = 1; n <= max; n++) {
            List<MemoryRegion> sources = three(size -> register(client, size, ALL), 32 * 1024);
            sources.forEach(this::fillRandom);
            ScatterGatherList list = segments(sources, n);
            MemoryRegion sink = register(server, 64 * 1024, ALL);
            int remoteOffset = 5 + n;
            assertThat(await(pair.client().write(list, sink.remote(), remoteOffset, OperationFlags.NONE)).bytes())
                    .isEqualTo(list.totalLength());
            // A WRITE completes when handed to the transport: a READ behind it proves it placed.
            MemoryRegion probe = register(client, list.totalLength(), ALL);
            await(pair.client().read(probe.slice(0, list.totalLength()), sink.remote(), remoteOffset,
                    OperationFlags.NONE));
            byte[] placed = new byte[list.totalLength()];
            probe.buffer().get(0, placed);
            assertThat(crc(placed)).as("%d segments", n).isEqualTo(crc(gather(list)));
            assertThat(sink.buffer().get(remoteOffset - 1)).isEqualTo(UNTOUCHED);
            assertThat(sink.buffer().get(remoteOffset + list.totalLength())).isEqualTo(UNTOUCHED);
            sources.forEach(MemoryRegion::close);
            sink.close();
            probe.close();
        }
    }

    @Test
    void aSendGathersAndAReceiveScattersAcrossDifferentSegmentBoundaries() {
        int initiator = initiatorSge();
        int receive = receiveSge();
        Pair pair = connect(initiator, receive);
        for (int n = 1; n <= Math.max(initiator, receive); n++) {
            List<MemoryRegion> sources = three(size -> register(client, size, ALL), 32 * 1024);
            sources.forEach(this::fillRandom);
            ScatterGatherList sent = segments(sources, Math.min(n, initiator));
            List<MemoryRegion> sinks = three(size -> register(server, size, ALL), 32 * 1024);
            // The receive's segments: as many as allowed, cut elsewhere than the Send's, together 7 bytes longer.
            ScatterGatherList receiving = new ScatterGatherList(receive);
            int pieces = Math.min(n, receive);
            int total = sent.totalLength();
            int[] next = new int[sinks.size()];
            for (int i = 0, left = total; i < pieces; i++) {
                int length = i == pieces - 1 ? left + 7 : Math.max(1, total / pieces - 3);
                int r = (i + 1) % sinks.size();
                receiving.add(sinks.get(r), next[r] + 11, length);
                next[r] += 11 + length;
                left = Math.max(0, left - length);
            }
            CompletableFuture<Completion> received = postedReceive(pair.server(), receiving, sinks.get(0),
                    sources.get(0));
            await(pair.client().send(sent, OperationFlags.NONE));
            assertThat(await(received).bytes()).isEqualTo(sent.totalLength());
            byte[] placed = Arrays.copyOf(gather(receiving), sent.totalLength());
            assertThat(crc(placed)).as("%d segments", n).isEqualTo(crc(gather(sent)));
            sources.forEach(MemoryRegion::close);
            sinks.forEach(MemoryRegion::close);
        }
    }

    @Test
    void callbackFormsAndBatchesCarryTheirSegments() {
        int max = Math.min(4, initiatorSge());
        Pair pair = connect(max, Math.min(4, receiveSge()));
        MemoryRegion source = register(server, 4096, ALL);
        fillRandom(source);
        List<MemoryRegion> sinks = three(size -> register(client, size, ALL), 4096);
        ScatterGatherList list = segments(sinks, max);
        CompletableFuture<Integer> called = new CompletableFuture<>();
        pair.client().read(list, source.remote(), 0, OperationFlags.NONE, new CompletionCallback() {
            @Override
            public void completed(long context, int bytes) {
                called.complete(bytes);
            }

            @Override
            public void failed(long context, RdmaException error) {
                called.completeExceptionally(error);
            }
        }, 42L);
        assertThat(await(called)).isEqualTo(list.totalLength());
        byte[] expected = new byte[list.totalLength()];
        source.buffer().get(0, expected);
        assertThat(gather(list)).isEqualTo(expected);

        MemoryRegion sink = register(server, 4096, ALL);
        List<CompletableFuture<Completion>> batch = pair.client().batch()
                .write(list, sink.remote(), 100, OperationFlags.NONE)
                .read(list, source.remote(), 50, OperationFlags.NONE)
                .post();
        batch.forEach(f -> assertThat(await(f).bytes()).isEqualTo(list.totalLength()));
        source.buffer().get(50, expected);
        assertThat(gather(list)).isEqualTo(expected);
    }

    @Test
    void anEmptyListIsAZeroLengthOperation() {
        Pair pair = connect(1, 1);
        MemoryRegion remote = register(server, 64, ALL);
        ScatterGatherList empty = new ScatterGatherList(1);
        assertThat(await(pair.client().read(empty, remote.remote(), 0, OperationFlags.NONE)).bytes()).isZero();
        assertThat(await(pair.client().write(empty, remote.remote(), 64, OperationFlags.NONE)).bytes()).isZero();
        CompletableFuture<Completion> received = postedReceive(pair.server(), empty, remote,
                register(client, 64, ALL));
        await(pair.client().send(empty, OperationFlags.NONE));
        assertThat(await(received).bytes()).isZero();
        assertThat(remote.buffer().get(0)).isEqualTo(UNTOUCHED);
    }

    @Test
    void moreSegmentsThanGrantedAreRefusedAtOnceWithNothingPosted() {
        assumeTrue(initiatorSge() >= 2 && receiveSge() >= 2, "the adapter allows a single segment only");
        Pair pair = connect(2, 2);
        MemoryRegion remote = register(server, 4096, ALL);
        ScatterGatherList three = segments(three(size -> register(client, size, ALL), 1024), 3);
        int slots = pair.client().availableInitiatorSlots();
        awaitFailure(pair.client().read(three, remote.remote(), 0, OperationFlags.NONE), Status.INVALID_PARAMETER);
        awaitFailure(pair.client().write(three, remote.remote(), 0, OperationFlags.NONE), Status.INVALID_PARAMETER);
        awaitFailure(pair.client().send(three, OperationFlags.NONE), Status.INVALID_PARAMETER);
        assertThat(pair.client().read(three, remote.remote(), 0, OperationFlags.NONE, IGNORED, 0))
                .isEqualTo(Status.INVALID_PARAMETER);
        assertThat(pair.client().availableInitiatorSlots()).isEqualTo(slots);
        int receiveSlots = pair.client().availableReceiveSlots();
        awaitFailure(pair.client().receive(three), Status.INVALID_PARAMETER);
        assertThat(pair.client().availableReceiveSlots()).isEqualTo(receiveSlots);
        // The connection is unharmed: two segments go.
        ScatterGatherList two = segments(three(size -> register(client, size, ALL), 1024), 2);
        assertThat(await(pair.client().read(two, remote.remote(), 0,
                OperationFlags.NONE)).bytes()).isEqualTo(two.totalLength());
    }

    @Test
    void aSegmentThatCannotTakeDataFailsReadsAndReceivesButNotWritesAndSends() {
        assumeTrue(initiatorSge() >= 2 && receiveSge() >= 2, "the adapter allows a single segment only");
        Pair pair = connect(2, 2);
        MemoryRegion remote = register(server, 4096, ALL);
        MemoryRegion writable = register(client, 1024, ALL);
        MemoryRegion readOnly = register(client, 1024, Access.REMOTE_READ);
        ScatterGatherList mixed = new ScatterGatherList(2).add(writable, 3, 100).add(readOnly, 5, 100);
        int slots = pair.client().availableInitiatorSlots();
        awaitFailure(pair.client().read(mixed, remote.remote(), 0, OperationFlags.NONE), Status.ACCESS_VIOLATION);
        awaitFailure(pair.client().receive(mixed), Status.ACCESS_VIOLATION);
        assertThat(pair.client().availableInitiatorSlots()).isEqualTo(slots);
        assertThat(writable.buffer().get(3)).isEqualTo(UNTOUCHED);
        assertThat(await(pair.client().write(mixed, remote.remote(), 0, OperationFlags.NONE)).bytes()).isEqualTo(200);
    }

    @Test
    void aDeregisteredOrForeignRegionInAnySegmentIsRefused() {
        assumeTrue(initiatorSge() >= 2, "the adapter allows a single segment only");
        Pair pair = connect(2, 1);
        MemoryRegion remote = register(server, 4096, ALL);
        MemoryRegion good = register(client, 1024, ALL);
        MemoryRegion gone = register(client, 1024, ALL);
        gone.deregister();
        awaitFailure(pair.client().write(new ScatterGatherList(2).add(good, 0, 8).add(gone, 0, 8), remote.remote(), 0,
                OperationFlags.NONE), Status.ACCESS_VIOLATION);
        MemoryRegion foreign = register(server, 1024, ALL);
        awaitFailure(pair.client().write(new ScatterGatherList(2).add(good, 0, 8).add(foreign, 0, 8), remote.remote(),
                0, OperationFlags.NONE), Status.ACCESS_VIOLATION);
        ScatterGatherList tooLong = new ScatterGatherList(2).add(good, 0, 1024).add(good, 0, 1024);
        awaitFailure(pair.client().read(tooLong, remote.remote(), 4096 - 1024, OperationFlags.NONE),
                Status.REMOTE_RESOURCES);
    }

    @Test
    void theListIsCopiedAtThePostSoItCanBeClearedAndReusedAtOnce() {
        assumeTrue(initiatorSge() >= 2, "the adapter allows a single segment only");
        Pair pair = connect(2, 1);
        MemoryRegion source = register(server, 4096, ALL);
        fillRandom(source);
        MemoryRegion a = register(client, 1024, ALL);
        MemoryRegion b = register(client, 1024, ALL);
        ScatterGatherList list = new ScatterGatherList(2);
        CompletableFuture<Completion> first = pair.client().read(list.add(a, 1, 10).add(b, 2, 20), source.remote(), 0,
                OperationFlags.NONE);
        CompletableFuture<Completion> second = pair.client().read(list.clear().add(b, 500, 30), source.remote(), 100,
                OperationFlags.NONE);
        assertThat(await(first).bytes()).isEqualTo(30);
        assertThat(await(second).bytes()).isEqualTo(30);
        byte[] expected = new byte[30];
        source.buffer().get(0, expected);
        byte[] got = new byte[30];
        a.buffer().get(1, got, 0, 10);
        b.buffer().get(2, got, 10, 20);
        assertThat(got).isEqualTo(expected);
        source.buffer().get(100, expected);
        b.buffer().get(500, got);
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void readLocalInvalidateInvalidatesTheFirstSegmentOnly() {
        assumeTrue(client.adapterInfo().isReadLocalInvalidateSupported(),
                "the adapter ignores RDMA_READ_LOCAL_INVALIDATE (AdapterInfo.isReadLocalInvalidateSupported)");
        assumeTrue(initiatorSge() >= 2, "the adapter allows a single segment only");
        Pair pair = connect(2, 1);
        MemoryRegion source = register(server, 4096, ALL);
        MemoryRegion first = register(client, 1024, ALL);
        MemoryRegion second = register(client, 1024, ALL);
        ScatterGatherList list = new ScatterGatherList(2).add(first, 0, 16).add(second, 0, 16);
        await(pair.client().read(list, source.remote(), 0, OperationFlags.RDMA_READ_LOCAL_INVALIDATE));
        assertThat(first.isValid()).isFalse();
        assertThat(second.isValid()).isTrue();
    }
}
