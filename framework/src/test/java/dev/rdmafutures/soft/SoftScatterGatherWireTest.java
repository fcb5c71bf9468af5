package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Scatter-gather lists on the soft wire, against hand-driven peers: what a gathering WRITE or SEND puts on the wire
 * (every FPDU's CRC checked by the peer), what a READ's Read Request names, how Read Responses and Send segments are
 * scattered, and which Read Responses terminate the connection.
 */
class SoftScatterGatherWireTest extends ConformanceSupport {
    private static final byte UNTOUCHED = (byte) 0xA5;
    private static final RemoteBuffer REMOTE = new RemoteBuffer(1000, 1 << 20, 0x1234);

    private final Random random = new Random(1401);

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    private MemoryRegion region(int size, boolean random) {
        ByteBuffer bytes = untouched(size);
        if (random) {
            byte[] noise = new byte[size];
            this.random.nextBytes(noise);
            bytes.put(0, noise);
        }
        return closeLater(client.register(bytes, Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
    }

    static ByteBuffer untouched(int size) {
        ByteBuffer bytes = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            bytes.put(i, UNTOUCHED);
        }
        return bytes;
    }

    /** Our client connected to a raw responder. */
    private record Wire(RdmaConnection connection, RawPeer peer) {
    }

    private Wire connectToRawPeer() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<RdmaConnection> c = client.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort())).withMaxSge(8, 8).start();
        RawPeer peer = closeLater(RawPeer.accept(raw, WAIT));
        return new Wire(closeLater(await(c)), peer);
    }

    private static byte[] gather(ScatterGatherList list) {
        byte[] bytes = new byte[list.totalLength()];
        for (int i = 0, at = 0; i < list.size(); at += list.length(i), i++) {
            list.region(i).buffer().get(list.offset(i), bytes, at, list.length(i));
        }
        return bytes;
    }

    private static byte[] payload(ByteBuffer ulpdu, int header) {
        byte[] bytes = new byte[ulpdu.remaining() - header];
        ulpdu.get(ulpdu.position() + header, bytes);
        return bytes;
    }

    @Test
    void aGatheringWriteSendsEverySegmentInOrderUnderEachFpdusCrc() throws Exception {
        Wire wire = connectToRawPeer();
        MemoryRegion a = region(80_000, true);
        MemoryRegion b = region(8_000, true);
        // Small and large segments, an empty one, a region revisited: 75,015 bytes, two DDP segments, whose first
        // spans four views and whose second starts inside the last segment.
        ScatterGatherList list = new ScatterGatherList(8).add(a, 3, 10).add(b, 7, 5000).add(b, 0, 0)
                .add(a, 100, 70_000).add(b, 6000, 5);
        CompletableFuture<Completion> written = wire.connection().write(list, REMOTE, 0, OperationFlags.NONE);

        ByteArrayOutputStream placed = new ByteArrayOutputStream();
        boolean last = false;
        while (!last) {
            ByteBuffer ulpdu = wire.peer().readUlpdu(); // checks the CRC
            int c0 = ulpdu.get(0) & 0xFF;
            assertThat(DdpHeader.isTagged(c0)).isTrue();
            assertThat(DdpHeader.opcode(ulpdu.get(1))).isEqualTo(Rdmap.RDMA_WRITE);
            assertThat(ulpdu.getInt(2)).isEqualTo(REMOTE.token());
            assertThat(ulpdu.getLong(6)).as("tagged offset").isEqualTo(REMOTE.address() + placed.size());
            placed.writeBytes(payload(ulpdu, DdpHeader.TAGGED_LENGTH));
            last = DdpHeader.isLast(c0);
        }
        assertThat(placed.toByteArray()).isEqualTo(gather(list));
        assertThat(await(written).bytes()).isEqualTo(75_015);

        // A gathered payload small enough to be copied into its FPDU: one FPDU, the same bytes.
        ScatterGatherList small = new ScatterGatherList(8).add(b, 1, 20).add(a, 9, 1).add(b, 50, 30);
        await(wire.connection().write(small, REMOTE, 64, OperationFlags.NONE));
        ByteBuffer ulpdu = wire.peer().readUlpdu();
        assertThat(DdpHeader.isLast(ulpdu.get(0))).isTrue();
        assertThat(payload(ulpdu, DdpHeader.TAGGED_LENGTH)).isEqualTo(gather(small));
    }

    @Test
    void aGatheringSendCarriesItsSegmentsAtRisingMessageOffsets() throws Exception {
        Wire wire = connectToRawPeer();
        MemoryRegion a = region(70_000, true);
        ScatterGatherList list = new ScatterGatherList(8).add(a, 65_000, 1000).add(a, 1, 65_000);
        await(wire.connection().send(list, OperationFlags.NONE));
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        for (boolean last = false; !last; ) {
            ByteBuffer ulpdu = wire.peer().readUlpdu();
            assertThat(DdpHeader.opcode(ulpdu.get(1))).isEqualTo(Rdmap.SEND);
            assertThat(ulpdu.getInt(10)).as("MSN").isEqualTo(1);
            assertThat(ulpdu.getInt(14)).as("message offset").isEqualTo(message.size());
            message.writeBytes(payload(ulpdu, DdpHeader.UNTAGGED_LENGTH));
            last = DdpHeader.isLast(ulpdu.get(0));
        }
        assertThat(message.toByteArray()).isEqualTo(gather(list));
    }

    @Test
    void aReadNamesItsFirstSegmentAsSinkAndItsResponseIsScatteredInOrder() throws Exception {
        Wire wire = connectToRawPeer();
        MemoryRegion a = region(4_000, false);
        MemoryRegion b = region(80_000, false);
        ScatterGatherList list = new ScatterGatherList(8).add(a, 5, 3000).add(b, 0, 0).add(b, 11, 70_000)
                .add(a, 3500, 1);
        CompletableFuture<Completion> read = wire.connection().read(list, REMOTE, 40, OperationFlags.NONE);

        ByteBuffer request = wire.peer().readUlpdu();
        assertThat(DdpHeader.opcode(request.get(1))).isEqualTo(Rdmap.READ_REQUEST);
        int control = DdpHeader.UNTAGGED_LENGTH;
        assertThat(request.getInt(control)).as("sink STag: the first segment's").isEqualTo(a.token());
        assertThat(request.getLong(control + 4)).as("sink offset: the first segment's").isEqualTo(5);
        assertThat(request.getInt(control + 12)).as("size").isEqualTo(73_001);
        assertThat(request.getInt(control + 16)).isEqualTo(REMOTE.token());
        assertThat(request.getLong(control + 20)).isEqualTo(REMOTE.address() + 40);

        // The response in DDP segments cut elsewhere than the local segments.
        byte[] data = new byte[73_001];
        random.nextBytes(data);
        int[] cuts = {0, 1000, 41_000, 73_001};
        for (int i = 0; i < 3; i++) {
            wire.peer().send(RawPeer.taggedSegment(Rdmap.READ_RESPONSE, a.token(), 5 + cuts[i], i == 2,
                    Arrays.copyOfRange(data, cuts[i], cuts[i + 1])));
        }
        assertThat(await(read).bytes()).isEqualTo(73_001);
        assertThat(gather(list)).isEqualTo(data);
        assertThat(a.buffer().get(4)).isEqualTo(UNTOUCHED);
        assertThat(a.buffer().get(3005)).isEqualTo(UNTOUCHED);
        assertThat(b.buffer().get(10)).isEqualTo(UNTOUCHED);
        assertThat(b.buffer().get(70_011)).isEqualTo(UNTOUCHED);
        assertThat(a.buffer().get(3501)).isEqualTo(UNTOUCHED);
    }

    @Test
    void aReadWithoutSegmentsAsksForZeroBytesAtSinkZero() throws Exception {
        Wire wire = connectToRawPeer();
        CompletableFuture<Completion> read = wire.connection().read(new ScatterGatherList(1), REMOTE, 0,
                OperationFlags.NONE);
        ByteBuffer request = wire.peer().readUlpdu();
        int control = DdpHeader.UNTAGGED_LENGTH;
        assertThat(request.getInt(control)).isZero();
        assertThat(request.getLong(control + 4)).isZero();
        assertThat(request.getInt(control + 12)).isZero();
        wire.peer().send(RawPeer.taggedSegment(Rdmap.READ_RESPONSE, 0, 0, true, new byte[0]));
        assertThat(await(read).bytes()).isZero();
    }

    @Test
    void aReadResponseThatDoesNotContinueTheSinkTerminatesTheConnection() throws Exception {
        // Wrong STag (the second segment's), a gap, an overlap, and one byte beyond the read.
        for (int variant = 0; variant < 4; variant++) {
            Wire wire = connectToRawPeer();
            MemoryRegion a = region(1000, false);
            MemoryRegion b = region(1000, false);
            ScatterGatherList list = new ScatterGatherList(2).add(a, 10, 100).add(b, 20, 100);
            CompletableFuture<Completion> read = wire.connection().read(list, REMOTE, 0, OperationFlags.NONE);
            wire.peer().readUlpdu();
            wire.peer().send(RawPeer.taggedSegment(Rdmap.READ_RESPONSE, a.token(), 10, false, new byte[50]));
            int stag = variant == 0 ? b.token() : a.token();
            long offset = switch (variant) {
                case 1 -> 61;
                case 2 -> 59;
                default -> 60;
            };
            wire.peer().send(RawPeer.taggedSegment(Rdmap.READ_RESPONSE, stag, offset, true,
                    new byte[variant == 3 ? 151 : 150]));
            awaitFailure(read, Status.CANCELED);
            assertThat(await(wire.connection().disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
            Terminate sent = Terminate.carriedBy(wire.peer().readUlpdu());
            assertThat(sent).as("variant %d", variant)
                    .isEqualTo(variant == 0 ? Terminate.INVALID_STAG : Terminate.BASE_OR_BOUNDS);
            assertThat(a.buffer().get(60)).as("nothing of the bad segment placed").isEqualTo(UNTOUCHED);
            assertThat(b.buffer().get(20)).as("nothing of the bad segment placed").isEqualTo(UNTOUCHED);
        }
    }

    @Test
    void aSendInSeveralDdpSegmentsIsScatteredOverTheReceiveByMessageOffset() throws Exception {
        RdmaListener listener = listen();
        RawPeer peer = closeLater(RawPeer.connect(listener.localAddress(), WAIT));
        RdmaConnection receiver = closeLater(await(await(listener.next()).withMaxSge(1, 8).accept()));
        peer.readReply();
        MemoryRegion a = closeLater(server.register(untouched(512), Access.LOCAL_WRITE));
        MemoryRegion b = closeLater(server.register(untouched(512), Access.LOCAL_WRITE));
        ScatterGatherList list = new ScatterGatherList(4).add(a, 1, 7).add(b, 3, 100).add(a, 200, 50);
        CompletableFuture<Completion> received = receiver.receive(list);
        byte[] message = new byte[150];
        random.nextBytes(message);
        peer.send(RawPeer.sendSegment(1, 0, false, Arrays.copyOfRange(message, 0, 5)));
        peer.send(RawPeer.sendSegment(1, 5, false, Arrays.copyOfRange(message, 5, 120)));
        peer.send(RawPeer.sendSegment(1, 120, true, Arrays.copyOfRange(message, 120, 150)));
        assertThat(await(received).bytes()).isEqualTo(150);
        byte[] placed = Arrays.copyOf(gather(list), 150);
        assertThat(placed).isEqualTo(message);
        assertThat(a.buffer().get(243)).as("the receive's room beyond the message").isEqualTo(UNTOUCHED);
        assertThat(b.buffer().get(2)).isEqualTo(UNTOUCHED);
        assertThat(b.buffer().get(103)).isEqualTo(UNTOUCHED);
    }
}
