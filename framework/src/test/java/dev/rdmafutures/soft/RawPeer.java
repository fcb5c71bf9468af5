package dev.rdmafutures.soft;

import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.rdmap.Rdmap;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A hand-driven iWARP peer over a plain blocking socket, for wire-level tests: the MPA exchange without
 * peer-to-peer mode (so no RTR), then FPDUs the test builds and reads itself. Every FPDU it reads is unframed with
 * the negotiated CRC checked, so a wrong CRC from the endpoint under test fails the test.
 */
final class RawPeer implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private FpduFraming framing;

    private RawPeer(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        socket.setSoTimeout((int) timeout.toMillis());
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
    }

    /**
     * Connects to {@code address} as an MPA initiator asking for CRC and 8 reads each way; {@link #readReply} waits
     * for the answer once the test accepted.
     */
    static RawPeer connect(InetSocketAddress address, Duration timeout) throws Exception {
        RawPeer peer = new RawPeer(new Socket(address.getAddress(), address.getPort()), timeout);
        peer.write(MpaMessage.request(true, 8, 8, false, 0, new byte[0]).encode());
        return peer;
    }

    /** Reads the responder's accepting Reply: from here FPDUs flow. */
    RawPeer readReply() throws Exception {
        MpaMessage reply = readMessage(true);
        if (reply.reject()) {
            throw new IllegalStateException("the responder rejected the connection");
        }
        framing = new FpduFraming(reply.crc());
        return this;
    }

    /** Takes the next connection on {@code raw} as an MPA responder: CRC, 8 reads each way, no RTR. */
    static RawPeer accept(ServerSocket raw, Duration timeout) throws Exception {
        RawPeer peer = new RawPeer(raw.accept(), timeout);
        MpaMessage request = peer.readMessage(false);
        peer.write(MpaMessage.replyTo(request, true, false, 8, 8, false, 0, new byte[0]).encode());
        peer.framing = new FpduFraming(true);
        return peer;
    }

    private MpaMessage readMessage(boolean reply) throws Exception {
        return readMpaMessage(in, reply);
    }

    /** Reads one MPA request ({@code reply} false) or reply, private data included, from {@code in}. */
    static MpaMessage readMpaMessage(DataInputStream in, boolean reply) throws Exception {
        byte[] header = new byte[MpaMessage.HEADER_LENGTH];
        in.readFully(header);
        int pdLength = ((header[18] & 0xFF) << 8) | (header[19] & 0xFF);
        byte[] all = new byte[header.length + pdLength];
        System.arraycopy(header, 0, all, 0, header.length);
        in.readFully(all, header.length, pdLength);
        return MpaMessage.decode(ByteBuffer.wrap(all), reply);
    }

    /** Reads the next FPDU and returns its ULPDU; throws if its CRC does not check out. */
    ByteBuffer readUlpdu() throws Exception {
        int length = in.readUnsignedShort();
        ByteBuffer fpdu = ByteBuffer.allocate(FpduFraming.fpduLength(length)).putShort((short) length);
        in.readFully(fpdu.array(), FpduFraming.LENGTH_FIELD, fpdu.remaining());
        return framing.unframe(fpdu.position(0), 0, 0xFFFF);
    }

    /** Frames {@code ulpdu} and sends it. */
    void send(ByteBuffer ulpdu) throws IOException {
        write(framing.frame(ulpdu));
    }

    /** Frames {@code ulpdu} and sends it with one bit of its CRC flipped. */
    void sendCorrupted(ByteBuffer ulpdu) throws IOException {
        ByteBuffer fpdu = framing.frame(ulpdu);
        int crcAt = fpdu.limit() - FpduFraming.CRC_FIELD;
        fpdu.put(crcAt, (byte) (fpdu.get(crcAt) ^ 1));
        write(fpdu);
    }

    /** A Send segment: {@code payload} at {@code messageOffset} of message {@code msn}. */
    static ByteBuffer sendSegment(int msn, int messageOffset, boolean last, byte[] payload) {
        ByteBuffer ulpdu = ByteBuffer.allocate(DdpHeader.UNTAGGED_LENGTH + payload.length);
        DdpHeader.putUntagged(ulpdu, Rdmap.SEND, last, 0, Rdmap.QUEUE_SEND, msn, messageOffset);
        return ulpdu.put(payload).flip();
    }

    /** A one-segment Send with Invalidate of message {@code msn}, naming {@code stag}. */
    static ByteBuffer sendInvalidate(int msn, int stag, byte[] payload) {
        ByteBuffer ulpdu = ByteBuffer.allocate(DdpHeader.UNTAGGED_LENGTH + payload.length);
        DdpHeader.putUntagged(ulpdu, Rdmap.SEND_INVALIDATE, true, stag, Rdmap.QUEUE_SEND, msn, 0);
        return ulpdu.put(payload).flip();
    }

    /** A Read Request numbered {@code msn}: {@code size} bytes of {@code sourceStag} to {@code sinkStag}. */
    static ByteBuffer readRequest(int msn, int sinkStag, long sinkOffset, int size, int sourceStag,
                                  long sourceOffset) {
        ByteBuffer ulpdu = ByteBuffer.allocate(DdpHeader.UNTAGGED_LENGTH + Rdmap.READ_REQUEST_LENGTH);
        DdpHeader.putUntagged(ulpdu, Rdmap.READ_REQUEST, true, 0, Rdmap.QUEUE_READ_REQUEST, msn, 0);
        return ulpdu.putInt(sinkStag).putLong(sinkOffset).putInt(size).putInt(sourceStag).putLong(sourceOffset)
                .flip();
    }

    /** A tagged segment ({@code opcode}) of {@code payload} for {@code stag} at {@code taggedOffset}. */
    static ByteBuffer taggedSegment(int opcode, int stag, long taggedOffset, boolean last, byte[] payload) {
        ByteBuffer ulpdu = ByteBuffer.allocate(DdpHeader.TAGGED_LENGTH + payload.length);
        DdpHeader.putTagged(ulpdu, opcode, last, stag, taggedOffset);
        return ulpdu.put(payload).flip();
    }

    /**
     * Waits for the endpoint's answer to what was sent: any byte, or the end of the stream (a reset counts too);
     * false when neither came within the socket timeout.
     */
    boolean answered() {
        try {
            in.read();
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset: the endpoint gave up on us, which is an answer
        }
    }

    /** Whether the endpoint closed its side: the next read finds the end of the stream (after what it sent). */
    boolean closedByPeer() throws IOException {
        return in.read() == -1;
    }

    private void write(ByteBuffer bytes) throws IOException {
        byte[] out = new byte[bytes.remaining()];
        bytes.get(out);
        socket.getOutputStream().write(out);
        socket.getOutputStream().flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
