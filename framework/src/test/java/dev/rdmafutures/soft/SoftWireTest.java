package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The soft provider against hand-driven TCP peers: what it sends, and how it treats peers that break MPA. */
class SoftWireTest extends ConformanceSupport {

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    private static MpaMessage readMessage(Socket socket, boolean reply) throws Exception {
        return RawPeer.readMpaMessage(new DataInputStream(socket.getInputStream()), reply);
    }

    private static void write(Socket socket, ByteBuffer bytes) throws IOException {
        byte[] out = new byte[bytes.remaining()];
        bytes.get(out);
        socket.getOutputStream().write(out);
        socket.getOutputStream().flush();
    }

    private Socket rawClient(RdmaListener listener) throws IOException {
        Socket s = new Socket(listener.localAddress().getAddress(), listener.localAddress().getPort());
        s.setSoTimeout((int) WAIT.toMillis());
        return closeLater(s);
    }

    @Test
    void ourRequestOffersRevision2IrdOrdCrcAndAWriteRtr() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<RdmaConnection> c = client.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()))
                .withReadLimits(7, 9).withPrivateData(new byte[] {42}).start();
        Socket peer = closeLater(raw.accept());
        peer.setSoTimeout((int) WAIT.toMillis());
        MpaMessage request = readMessage(peer, false);
        assertThat(request.revision()).isEqualTo(2);
        assertThat(request.enhanced()).isTrue();
        assertThat(request.crc()).isTrue();
        assertThat(request.markers()).isFalse();
        assertThat(request.ird()).isEqualTo(7);
        assertThat(request.ord()).isEqualTo(9);
        assertThat(request.peerToPeer()).isTrue();
        assertThat(request.rtrTypes()).isEqualTo(MpaMessage.RTR_WRITE);
        assertThat(request.privateData()).containsExactly(42);

        // Accept with peer-to-peer: the client must send exactly one zero-length RDMA Write, CRC'd, as its RTR.
        write(peer, MpaMessage.replyTo(request, true, false, 3, 5, true, MpaMessage.RTR_WRITE, new byte[] {1})
                .encode());
        RdmaConnection connection = closeLater(await(c));
        assertThat(connection.connectionData().readLimits().inbound()).isEqualTo(5);
        assertThat(connection.connectionData().readLimits().outbound()).isEqualTo(3);
        byte[] rtr = new byte[FpduFraming.fpduLength(DdpHeader.TAGGED_LENGTH)];
        new DataInputStream(peer.getInputStream()).readFully(rtr);
        ByteBuffer ulpdu = new FpduFraming(true).unframe(ByteBuffer.wrap(rtr), 14, 0xFFFF);
        assertThat(DdpHeader.isZeroLengthWrite(ulpdu)).isTrue();
    }

    @Test
    void aPendingConnectWhoseDeadlinePassesSendsATerminateInPlaceOfItsRtrAndCloses() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<PendingConnection> p = client.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()))
                .withTimeout(Duration.ofMillis(500)).deferCompletion().start();
        Socket peer = closeLater(raw.accept());
        peer.setSoTimeout((int) WAIT.toMillis());
        MpaMessage request = readMessage(peer, false);
        write(peer, MpaMessage.replyTo(request, true, false, 1, 1, true, MpaMessage.RTR_WRITE, new byte[0])
                .encode());
        PendingConnection pending = await(p);

        // Nobody completes: once the deadline passes, the stream's one FPDU is a Terminate, then FIN.
        DataInputStream in = new DataInputStream(peer.getInputStream());
        byte[] fpdu = new byte[FpduFraming.fpduLength(DdpHeader.UNTAGGED_LENGTH + Terminate.LENGTH)];
        in.readFully(fpdu);
        assertThat(in.read()).as("then the initiator closes").isEqualTo(-1);
        ByteBuffer ulpdu = new FpduFraming(true).unframe(ByteBuffer.wrap(fpdu), DdpHeader.UNTAGGED_LENGTH, 0xFFFF);
        assertThat(ulpdu.remaining()).isEqualTo(22);
        assertThat(ulpdu.get(0)).as("untagged, last, DDP version 1").isEqualTo((byte) 0x41);
        assertThat(ulpdu.get(1)).as("RDMAP version 1, Terminate").isEqualTo((byte) 0x47);
        assertThat(ulpdu.getInt(2)).as("reserved for the ULP").isZero();
        assertThat(ulpdu.getInt(6)).as("queue: Terminate").isEqualTo(2);
        assertThat(ulpdu.getInt(10)).as("MSN").isEqualTo(1);
        assertThat(ulpdu.getInt(14)).as("message offset").isZero();
        assertThat(ulpdu.getInt(18)).as("RDMAP, Local Catastrophic Error, code 0x00, no headers").isZero();
        assertThat(Terminate.carriedBy(ulpdu)).isEqualTo(Terminate.PENDING_EXPIRED);
        awaitFailure(pending.complete(), Status.INVALID_DEVICE_STATE);
    }

    @Test
    void aResponderWaitingForTheRtrMapsOnlyTheExpiryTerminateToIoTimeout() throws Exception {
        RdmaListener listener = listen();
        for (Terminate sent : new Terminate[] {Terminate.PENDING_EXPIRED, Terminate.STREAM_CATASTROPHIC}) {
            Socket peer = rawClient(listener);
            write(peer, MpaMessage.request(false, 4, 4, true, MpaMessage.RTR_WRITE, new byte[0]).encode());
            CompletableFuture<RdmaConnection> accepted = await(listener.next()).accept();
            MpaMessage reply = readMessage(peer, true);
            write(peer, new FpduFraming(reply.crc()).frame(sent.message()));
            awaitFailure(accepted, sent.equals(Terminate.PENDING_EXPIRED) ? Status.IO_TIMEOUT
                    : Status.INVALID_NETWORK_RESPONSE);
        }
    }

    @Test
    void aPeerThatDemandsMarkersIsRefusedWithAClearError() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<RdmaConnection> c = client.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort())).start();
        Socket peer = closeLater(raw.accept());
        MpaMessage request = readMessage(peer, false);
        ByteBuffer reply = MpaMessage.replyTo(request, false, false, 1, 1, false, 0, new byte[0]).encode();
        reply.put(16, (byte) (reply.get(16) | 0x80));
        write(peer, reply);
        assertThat(awaitFailure(c, Status.NOT_SUPPORTED)).hasMessageContaining("markers");
    }

    @Test
    void anInitiatorThatDemandsMarkersIsRejectedBeforeTheApplicationSeesIt() throws Exception {
        RdmaListener listener = listen();
        Socket peer = rawClient(listener);
        ByteBuffer request = MpaMessage.request(false, 4, 4, false, 0, new byte[0]).encode();
        request.put(16, (byte) (request.get(16) | 0x80));
        write(peer, request);
        MpaMessage reply = readMessage(peer, true);
        assertThat(reply.reject()).isTrue();
        assertThat(reply.markers()).isFalse();
        assertThat(peer.getInputStream().read()).as("then the connection closes").isEqualTo(-1);
        assertThat(listener.next()).isNotDone();
    }

    @Test
    void aListenerThatNeverRepliesTimesTheConnectOut() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<RdmaConnection> c = client.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()))
                .withTimeout(Duration.ofMillis(500)).start();
        closeLater(raw.accept());
        assertThat(awaitFailure(c, Status.IO_TIMEOUT).isRetryable()).isTrue();
    }

    @Test
    void aReplyChoosingAnRtrTypeWeDidNotOfferFailsTheConnect() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        CompletableFuture<RdmaConnection> c = client.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort())).start();
        Socket peer = closeLater(raw.accept());
        MpaMessage request = readMessage(peer, false);
        write(peer, MpaMessage.replyTo(request, false, false, 1, 1, true, MpaMessage.RTR_READ, new byte[0]).encode());
        awaitFailure(c, Status.INVALID_NETWORK_RESPONSE);
    }

    @Test
    void aRevisionOnePeerIsAnsweredInRevisionOneWithoutRtr() throws Exception {
        RdmaListener listener = listen();
        Socket peer = rawClient(listener);
        ByteBuffer v1 = ByteBuffer.allocate(22);
        v1.put("MPA ID Req Frame".getBytes()).put((byte) 0).put((byte) 1).putShort((short) 2).put(new byte[] {9, 9});
        write(peer, v1.flip());
        ConnectionRequest request = await(listener.next());
        assertThat(request.privateData()).containsExactly(9, 9);
        RdmaConnection accepted = closeLater(await(request.withReadLimits(3, 4).accept()));
        MpaMessage reply = readMessage(peer, true);
        assertThat(reply.revision()).isEqualTo(1);
        assertThat(reply.enhanced()).isFalse();
        assertThat(accepted.connectionData().readLimits().inbound()).isEqualTo(3);
    }

    @Test
    void aPeerToPeerInitiatorWhoseRtrIsWrongFailsTheAccept() throws Exception {
        RdmaListener listener = listen();
        Socket peer = rawClient(listener);
        write(peer, MpaMessage.request(false, 4, 4, true, MpaMessage.RTR_WRITE, new byte[0]).encode());
        CompletableFuture<RdmaConnection> accepted = await(listener.next()).accept();
        MpaMessage reply = readMessage(peer, true);
        assertThat(reply.peerToPeer()).isTrue();
        assertThat(reply.rtrTypes()).isEqualTo(MpaMessage.RTR_WRITE);
        ByteBuffer wrong = ByteBuffer.allocate(32);
        ByteBuffer notRtr = ByteBuffer.allocate(14);
        DdpHeader.putTagged(notRtr, 2, true, 0, 0); // an RDMA Read Response is no RTR
        new FpduFraming(reply.crc()).frame(notRtr.flip(), wrong);
        write(peer, wrong.flip());
        awaitFailure(accepted, Status.INVALID_NETWORK_RESPONSE);
    }

    /** A raw initiator that reads nothing after the MPA exchange, so our read responses pile up unsent. */
    private Socket rawReader(RdmaListener listener) throws Exception {
        Socket peer = rawClient(listener);
        peer.setReceiveBufferSize(4096);
        write(peer, MpaMessage.request(false, 8, 8, false, 0, new byte[0]).encode());
        return peer;
    }

    private static ByteBuffer readRequest(int msn, MemoryRegion source, int size) {
        ByteBuffer ulpdu = ByteBuffer.allocate(DdpHeader.UNTAGGED_LENGTH + Rdmap.READ_REQUEST_LENGTH);
        DdpHeader.putUntagged(ulpdu, Rdmap.READ_REQUEST, true, 0, Rdmap.QUEUE_READ_REQUEST, msn, 0);
        ulpdu.putInt(0x1234).putLong(0).putInt(size).putInt(source.token()).putLong(0);
        ByteBuffer fpdu = ByteBuffer.allocate(FpduFraming.fpduLength(ulpdu.position()));
        new FpduFraming(true).frame(ulpdu.flip(), fpdu); // our endpoint asks for CRC, so MPA negotiates it on
        return fpdu.flip();
    }

    @Test
    void aPeerWithMoreReadsOutstandingThanOurInboundLimitIsTerminated() throws Exception {
        RdmaListener listener = listen();
        MemoryRegion source = closeLater(server.register(ByteBuffer.allocateDirect(8 << 20), Access.REMOTE_READ));
        MemoryRegion inbox = closeLater(server.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE));
        for (int requests : new int[] {2, 3}) {
            Socket peer = rawReader(listener);
            RdmaConnection accepted = closeLater(await(await(listener.next()).withReadLimits(2, 2).accept()));
            assertThat(accepted.connectionData().readLimits().inbound()).isEqualTo(2);
            for (int msn = 1; msn <= requests; msn++) {
                write(peer, readRequest(msn, source, 8 << 20)); // 8 MiB each: far more than the socket buffers
            }
            if (requests == 2) {
                // Barrier: a Send behind the requests on the same stream is placed only once both were taken in.
                CompletableFuture<Completion> received = accepted.receive(inbox.slice(0, 8));
                write(peer, new FpduFraming(true).frame(RawPeer.sendSegment(1, 0, true, new byte[] {7})));
                assertThat(await(received).bytes()).isEqualTo(1);
                assertThat(accepted.isConnected()).as("within the inbound limit").isTrue();
            } else {
                assertThat(await(accepted.disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
            }
        }
    }

    @Test
    void aSendThatFindsNoReceiveWithinTheHandshakeTimeoutTerminatesBothSides() {
        RdmaRuntime impatient = closeLater(SoftFixture.INSTANCE.runtimeBuilder()
                .handshakeTimeout(Duration.ofMillis(500)).threadNamePrefix("impatient").build());
        RdmaListener listener = closeLater(impatient.listen(anyPort()));
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        RdmaConnection receiver = closeLater(await(await(listener.next()).accept()));
        RdmaConnection sender = closeLater(await(c));
        MemoryRegion data = closeLater(client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        sender.send(data.slice(0, 64), OperationFlags.NONE);
        assertThat(await(receiver.disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
        assertThat(await(sender.disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
    }

    @Test
    void garbageInsteadOfARequestNeverReachesTheApplication() throws Exception {
        RdmaListener listener = listen();
        Socket peer = rawClient(listener);
        peer.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
        assertThat(peer.getInputStream().read()).as("closed by the provider").isEqualTo(-1);
        CompletableFuture<ConnectionRequest> next = listener.next();
        assertThat(next).isNotDone();
        // The listener keeps serving: the next request is a real one.
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        closeLater(await(await(next).accept()));
        closeLater(await(c));
    }

    @Test
    void anInitiatorThatLeavesBeforeTheAnswerAbortsTheRequest() throws Exception {
        RdmaRuntime quick = closeLater(SoftFixture.INSTANCE.runtimeBuilder().threadNamePrefix("quick").build());
        RdmaListener listener = closeLater(quick.listen(anyPort()));
        Socket peer = rawClient(listener);
        write(peer, MpaMessage.request(false, 4, 4, false, 0, new byte[0]).encode());
        ConnectionRequest request = await(listener.next());
        peer.shutdownOutput(); // the FIN, as a close would send it
        // Barrier: the provider closes its socket only after it withdrew the request (PassiveHandshake.withdraw).
        assertThat(peer.getInputStream().read()).as("the provider closed the abandoned socket").isEqualTo(-1);
        awaitFailure(request.accept(), Status.CONNECTION_ABORTED);
    }
}
