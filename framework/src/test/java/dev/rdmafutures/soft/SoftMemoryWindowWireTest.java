package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Memory windows on the soft wire, against hand-driven peers: where tagged access through a window lands, which
 * accesses terminate the stream and with what, who may invalidate a window remotely, and that binds and
 * invalidations put nothing on the wire yet take effect in post order.
 */
class SoftMemoryWindowWireTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
    private static final int SPAN_AT = 1000;
    private static final int SPAN = 100;
    private static final int SINK = 0x5151;

    private final Random random = new Random(1404);

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    /** A connection our server accepted from a raw initiator. */
    private record Raw(RdmaConnection connection, RawPeer peer) {
    }

    private Raw rawInitiator(RdmaListener listener) throws Exception {
        RawPeer peer = closeLater(RawPeer.connect(listener.localAddress(), WAIT));
        RdmaConnection accepted = closeLater(await(await(listener.next()).accept()));
        peer.readReply();
        return new Raw(accepted, peer);
    }

    private byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Waits until the server placed what {@code peer} sent before: it answers a zero-length read after that. */
    private static void awaitPlaced(RawPeer peer, int msn) throws Exception {
        peer.send(RawPeer.readRequest(msn, SINK, 0, 0, 0, 0));
        ByteBuffer response = peer.readUlpdu();
        assertThat(DdpHeader.opcode(response.get(1))).isEqualTo(Rdmap.READ_RESPONSE);
    }

    private static byte[] bytes(ByteBuffer buffer, int from, int length) {
        byte[] out = new byte[length];
        buffer.get(from, out);
        return out;
    }

    @Test
    void aWriteThroughTheWindowLandsInItsSpanFromTaggedOffsetZero() throws Exception {
        Raw raw = rawInitiator(listen());
        ByteBuffer memory = SoftScatterGatherWireTest.untouched(4096);
        MemoryRegion region = closeLater(server.register(memory, ALL));
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(raw.connection().bind(window, region, SPAN_AT, SPAN, Access.REMOTE_WRITE));
        assertThat(remote.address()).isZero();
        byte[] data = randomBytes(SPAN);
        raw.peer().send(RawPeer.taggedSegment(Rdmap.RDMA_WRITE, remote.token(), 0, false,
                Arrays.copyOfRange(data, 0, 30)));
        raw.peer().send(RawPeer.taggedSegment(Rdmap.RDMA_WRITE, remote.token(), 30, true,
                Arrays.copyOfRange(data, 30, SPAN)));
        awaitPlaced(raw.peer(), 1);
        assertThat(bytes(memory, SPAN_AT, SPAN)).isEqualTo(data);
        byte[] untouched = bytes(SoftScatterGatherWireTest.untouched(4096), 0, 4096 - SPAN_AT - SPAN);
        assertThat(bytes(memory, 0, SPAN_AT)).isEqualTo(Arrays.copyOf(untouched, SPAN_AT));
        assertThat(bytes(memory, SPAN_AT + SPAN, untouched.length)).isEqualTo(untouched);
        assertThat(raw.connection().isConnected()).isTrue();
    }

    @Test
    void writesTheWindowDoesNotGrantAreTerminatedBeforeAByteIsPlaced() throws Exception {
        RdmaListener listener = listen();
        String[] variants = {"one byte beyond the span", "a right not granted", "after invalidation",
                "an earlier binding's STag", "its region deregistered", "the window closed"};
        for (int variant = 0; variant < variants.length; variant++) {
            Raw raw = rawInitiator(listener);
            ByteBuffer memory = SoftScatterGatherWireTest.untouched(4096);
            MemoryRegion region = server.register(memory, ALL);
            MemoryWindow window = closeLater(server.allocateMemoryWindow());
            Access right = variant == 1 ? Access.REMOTE_READ : Access.REMOTE_WRITE;
            RemoteBuffer remote = await(raw.connection().bind(window, region, SPAN_AT, SPAN, right));
            long offset = variant == 0 ? 1 : 0;
            Terminate expected = switch (variant) {
                case 0 -> Terminate.BASE_OR_BOUNDS;
                case 1 -> Terminate.ACCESS_RIGHTS;
                default -> Terminate.INVALID_STAG;
            };
            switch (variant) {
                case 2 -> await(raw.connection().invalidate(window));
                case 3 -> {
                    RemoteBuffer next = await(raw.connection().bind(window, region, SPAN_AT, SPAN, right));
                    assertThat(next.token() >>> 8).as("the window's STag index").isEqualTo(remote.token() >>> 8);
                    assertThat(next.token() & 0xFF).as("its key").isEqualTo((remote.token() + 1) & 0xFF);
                }
                case 4 -> region.deregister();
                case 5 -> {
                    window.close();
                    window.close();
                }
                default -> {
                }
            }
            assertThat(window.isBound()).as(variants[variant]).isEqualTo(variant < 2 || variant == 3);
            raw.peer().send(RawPeer.taggedSegment(Rdmap.RDMA_WRITE, remote.token(), offset, true,
                    randomBytes(SPAN)));
            assertThat(Terminate.carriedBy(raw.peer().readUlpdu())).as(variants[variant]).isEqualTo(expected);
            assertThat(await(raw.connection().disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
            assertThat(memory).as(variants[variant]).isEqualTo(SoftScatterGatherWireTest.untouched(4096));
            assertThat(window.isBound()).as("a window grants nothing once its connection ended").isFalse();
            region.close();
        }
    }

    @Test
    void aReadRequestIsAnsweredFromTheSpanOnlyOnTheConnectionTheWindowWasBoundOn() throws Exception {
        RdmaListener listener = listen();
        Raw bound = rawInitiator(listener);
        Raw other = rawInitiator(listener);
        ByteBuffer memory = ByteBuffer.allocateDirect(4096).put(0, randomBytes(4096));
        MemoryRegion region = closeLater(server.register(memory, ALL));
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(bound.connection().bind(window, region, SPAN_AT, SPAN, Access.REMOTE_READ));

        bound.peer().send(RawPeer.readRequest(1, SINK, 7, 60, remote.token(), 20));
        ByteBuffer response = bound.peer().readUlpdu();
        assertThat(DdpHeader.opcode(response.get(1))).isEqualTo(Rdmap.READ_RESPONSE);
        assertThat(response.getInt(2)).as("sink STag").isEqualTo(SINK);
        assertThat(response.getLong(6)).as("sink offset").isEqualTo(7);
        assertThat(bytes(response, DdpHeader.TAGGED_LENGTH, 60)).isEqualTo(bytes(memory, SPAN_AT + 20, 60));

        other.peer().send(RawPeer.readRequest(1, SINK, 0, 60, remote.token(), 20));
        assertThat(Terminate.carriedBy(other.peer().readUlpdu())).isEqualTo(Terminate.STAG_NOT_ASSOCIATED);
        assertThat(await(other.connection().disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
        assertThat(window.isBound()).isTrue();

        // The window's own connection reads on; a read one byte beyond the span is refused.
        bound.peer().send(RawPeer.readRequest(2, SINK, 0, SPAN, remote.token(), 0));
        assertThat(bytes(bound.peer().readUlpdu(), DdpHeader.TAGGED_LENGTH, SPAN))
                .isEqualTo(bytes(memory, SPAN_AT, SPAN));
        bound.peer().send(RawPeer.readRequest(3, SINK, 0, SPAN, remote.token(), 1));
        assertThat(Terminate.carriedBy(bound.peer().readUlpdu())).isEqualTo(Terminate.BASE_OR_BOUNDS);
        assertThat(window.isBound()).as("a window grants nothing once its connection ended").isFalse();
        assertThat(region.isValid()).isTrue();
    }

    @Test
    void onlyThePeerOfTheConnectionTheWindowWasBoundOnMayInvalidateIt() throws Exception {
        RdmaListener listener = listen();
        Raw bound = rawInitiator(listener);
        Raw other = rawInitiator(listener);
        MemoryRegion region = closeLater(server.register(ByteBuffer.allocateDirect(4096), ALL));
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(bound.connection().bind(window, region, SPAN_AT, SPAN, Access.REMOTE_WRITE));
        MemoryRegion inbox = closeLater(server.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));

        CompletableFuture<Completion> refused = other.connection().receive(inbox.slice(0, 32));
        awaitPlaced(other.peer(), 1); // the receive is posted
        other.peer().send(RawPeer.sendInvalidate(1, remote.token(), new byte[8]));
        assertThat(Terminate.carriedBy(other.peer().readUlpdu())).isEqualTo(Terminate.CANNOT_INVALIDATE);
        awaitFailure(refused, Status.ACCESS_VIOLATION);
        assertThat(window.isBound()).isTrue();

        CompletableFuture<Completion> received = bound.connection().receive(inbox.slice(32, 32));
        awaitPlaced(bound.peer(), 1);
        bound.peer().send(RawPeer.sendInvalidate(1, remote.token(), new byte[8]));
        Completion done = await(received);
        assertThat(done.bytes()).isEqualTo(8);
        assertThat(done.invalidatedToken()).hasValue(remote.token());
        assertThat(window.isBound()).isFalse();
        assertThat(region.isValid()).isTrue();
        // Invalidated once, it cannot be invalidated again.
        CompletableFuture<Completion> again = bound.connection().receive(inbox.slice(32, 32));
        awaitPlaced(bound.peer(), 2);
        bound.peer().send(RawPeer.sendInvalidate(2, remote.token(), new byte[0]));
        assertThat(Terminate.carriedBy(bound.peer().readUlpdu())).isEqualTo(Terminate.CANNOT_INVALIDATE);
        awaitFailure(again, Status.ACCESS_VIOLATION);
    }

    @Test
    void bindsAndInvalidationsPutNothingOnTheWireAndTakeEffectInPostOrder() throws Exception {
        ServerSocket socket = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<RdmaConnection> connecting = client.connector()
                .connect(new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort()))
                .withReadLimits(1, 1).start();
        RawPeer peer = closeLater(RawPeer.accept(socket, WAIT));
        RdmaConnection connection = closeLater(await(connecting));
        MemoryRegion region = closeLater(client.register(ByteBuffer.allocateDirect(4096), ALL));
        MemoryWindow window = closeLater(client.allocateMemoryWindow());
        RemoteBuffer far = new RemoteBuffer(0, 4096, 0x1234);

        // One read may be outstanding: the second waits, and the bind behind it waits for its turn.
        CompletableFuture<Completion> first = connection.read(region.slice(0, 8), far, 0, OperationFlags.NONE);
        CompletableFuture<Completion> second = connection.read(region.slice(8, 8), far, 8, OperationFlags.NONE);
        CompletableFuture<RemoteBuffer> bind = connection.bind(window, region, 0, 64, Access.REMOTE_READ);
        CompletableFuture<Void> invalidate = connection.invalidate(window);
        CompletableFuture<RemoteBuffer> rebind = connection.bind(window, region, 64, 64, Access.REMOTE_WRITE);
        CompletableFuture<Completion> send = connection.send(region.slice(0, 4), OperationFlags.NONE);

        ByteBuffer request = peer.readUlpdu();
        assertThat(DdpHeader.opcode(request.get(1))).isEqualTo(Rdmap.READ_REQUEST);
        assertThat(window.token()).as("nothing bound while the bind waits its turn").isZero();
        peer.send(RawPeer.taggedSegment(Rdmap.READ_RESPONSE, region.token(), 0, true, new byte[8]));
        assertThat(await(first).bytes()).isEqualTo(8);

        // The second read leaves, and with it the bind, the invalidation and the rebind take effect; the Send is
        // the next FPDU: the window's requests put nothing on the wire.
        request = peer.readUlpdu();
        assertThat(DdpHeader.opcode(request.get(1))).isEqualTo(Rdmap.READ_REQUEST);
        ByteBuffer next = peer.readUlpdu();
        assertThat(DdpHeader.opcode(next.get(1))).isEqualTo(Rdmap.SEND);
        assertThat(window.isBound()).isTrue();
        assertThat(bind).as("completes in order, behind the waiting read").isNotDone();
        peer.send(RawPeer.taggedSegment(Rdmap.READ_RESPONSE, region.token(), 8, true, new byte[8]));
        assertThat(await(second).bytes()).isEqualTo(8);
        await(bind);
        await(invalidate);
        RemoteBuffer bound = await(rebind);
        assertThat(await(send).bytes()).isEqualTo(4);
        assertThat(bound.token()).isEqualTo(window.token());
        assertThat(bound.length()).isEqualTo(64);

        // The rebinding is in force: a write through it lands from the region's byte 64.
        byte[] data = randomBytes(64);
        peer.send(RawPeer.taggedSegment(Rdmap.RDMA_WRITE, bound.token(), 0, true, data));
        awaitPlaced(peer, 1);
        assertThat(bytes(region.buffer(), 64, 64)).isEqualTo(data);
    }
}
