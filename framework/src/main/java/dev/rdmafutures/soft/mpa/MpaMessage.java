package dev.rdmafutures.soft.mpa;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * An MPA Request or Reply (RFC 5044 section 7.1) with RFC 6581's enhanced connection setup: a 16-byte key, a
 * flags/revision word, the private-data length, and private data whose first 4 bytes carry IRD and ORD with their
 * control bits when the message is enhanced. {@link #privateData()} is the consumer's part only.
 *
 * @param reply       a Reply (else a Request)
 * @param markers     M: the sender wants markers
 * @param crc         C: CRC32c is used
 * @param reject      R: the Reply rejects (Replies only)
 * @param revision    1 or 2
 * @param enhanced    E: revision 2 with the IRD/ORD header
 * @param ird         the sender's inbound read limit (14 bits), when enhanced
 * @param ord         the sender's outbound read limit (14 bits), when enhanced
 * @param peerToPeer  P: peer-to-peer mode, a ready-to-receive message confirms establishment
 * @param rtrTypes    the RTR message types offered (Request) or chosen (Reply): {@link #RTR_SEND},
 *                    {@link #RTR_WRITE}, {@link #RTR_READ}
 * @param privateData the consumer's private data
 */
public record MpaMessage(boolean reply, boolean markers, boolean crc, boolean reject, int revision, boolean enhanced,
                         int ird, int ord, boolean peerToPeer, int rtrTypes, byte[] privateData) {
    /** The fixed part: key (16), flags and revision (2), private-data length (2). */
    public static final int HEADER_LENGTH = 20;
    /** RFC 5044's limit on private data, the enhanced header included. */
    public static final int MAX_PRIVATE_DATA = 512;
    /** The IRD/ORD header that enhanced messages put in front of the consumer's private data. */
    public static final int ENHANCED_HEADER_LENGTH = 4;
    /** What a consumer may send in an enhanced message. */
    public static final int MAX_CONSUMER_PRIVATE_DATA = MAX_PRIVATE_DATA - ENHANCED_HEADER_LENGTH;

    /** RTR type: a zero-length Send (IRD control bit). */
    public static final int RTR_SEND = 1;
    /** RTR type: a zero-length RDMA Write (ORD control bit). */
    public static final int RTR_WRITE = 2;
    /** RTR type: a zero-length RDMA Read (ORD control bit). */
    public static final int RTR_READ = 4;

    static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    static final int FLAG_ENHANCED = 0x10;
    static final int LIMIT_MASK = 0x3FFF;
    static final int IRD_PEER_TO_PEER = 0x8000;
    static final int IRD_SEND_RTR = 0x4000;
    static final int ORD_WRITE_RTR = 0x8000;
    static final int ORD_READ_RTR = 0x4000;

    /** Validates the fields that encoding depends on. */
    public MpaMessage {
        if (revision != 1 && revision != 2) {
            throw new IllegalArgumentException("MPA revision must be 1 or 2: " + revision);
        }
        if (enhanced && revision != 2) {
            throw new IllegalArgumentException("enhanced setup needs revision 2");
        }
        int limit = enhanced ? MAX_CONSUMER_PRIVATE_DATA : MAX_PRIVATE_DATA;
        if (privateData.length > limit) {
            throw new IllegalArgumentException("private data " + privateData.length + " > " + limit);
        }
        if ((ird & ~LIMIT_MASK) != 0 || (ord & ~LIMIT_MASK) != 0) {
            throw new IllegalArgumentException("IRD/ORD must fit 14 bits: " + ird + "/" + ord);
        }
    }

    /** An enhanced revision-2 Request. */
    public static MpaMessage request(boolean crc, int ird, int ord, boolean peerToPeer, int rtrTypes, byte[] pd) {
        return new MpaMessage(false, false, crc, false, 2, true, ird, ord, peerToPeer, rtrTypes, pd);
    }

    /** A Reply answering {@code request}: same revision and enhancement, accepting or rejecting. */
    public static MpaMessage replyTo(MpaMessage request, boolean crc, boolean reject, int ird, int ord,
                                     boolean peerToPeer, int rtrType, byte[] pd) {
        return new MpaMessage(true, false, crc, reject, request.revision, request.enhanced, ird, ord,
                peerToPeer, rtrType, pd);
    }

    /** The encoded message, ready to write. */
    public ByteBuffer encode() {
        int pdLength = privateData.length + (enhanced ? ENHANCED_HEADER_LENGTH : 0);
        ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH + pdLength);
        b.put(reply ? REPLY_KEY : REQUEST_KEY);
        int flags = (markers ? FLAG_MARKERS : 0) | (crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0)
                | (enhanced ? FLAG_ENHANCED : 0);
        b.put((byte) flags).put((byte) revision).putShort((short) pdLength);
        if (enhanced) {
            int irdWord = ird | (peerToPeer ? IRD_PEER_TO_PEER : 0) | ((rtrTypes & RTR_SEND) != 0 ? IRD_SEND_RTR : 0);
            int ordWord = ord | ((rtrTypes & RTR_WRITE) != 0 ? ORD_WRITE_RTR : 0)
                    | ((rtrTypes & RTR_READ) != 0 ? ORD_READ_RTR : 0);
            b.putShort((short) irdWord).putShort((short) ordWord);
        }
        b.put(privateData);
        return b.flip();
    }

    /**
     * Decodes one message from {@code in} if it holds a whole one, consuming exactly its bytes; returns null and
     * consumes nothing when more bytes are needed.
     *
     * @param expectReply whether a Reply (else a Request) is expected
     * @throws MpaProtocolException for a wrong key, an unknown revision, or a bad private-data length
     */
    public static MpaMessage decode(ByteBuffer in, boolean expectReply) throws MpaProtocolException {
        if (in.remaining() < HEADER_LENGTH) {
            checkKeyPrefix(in, expectReply);
            return null;
        }
        int start = in.position();
        checkKeyPrefix(in, expectReply);
        int flags = in.get(start + 16) & 0xFF;
        int revision = in.get(start + 17) & 0xFF;
        int pdLength = in.getShort(start + 18) & 0xFFFF;
        if (revision != 1 && revision != 2) {
            throw new MpaProtocolException(dev.rdmafutures.Status.NOT_SUPPORTED,
                    "peer speaks MPA revision " + revision + "; revisions 1 and 2 are supported");
        }
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new MpaProtocolException(dev.rdmafutures.Status.INVALID_NETWORK_RESPONSE,
                    "MPA private data length " + pdLength + " exceeds " + MAX_PRIVATE_DATA);
        }
        if (in.remaining() < HEADER_LENGTH + pdLength) {
            return null;
        }
        boolean enhanced = revision == 2 && (flags & FLAG_ENHANCED) != 0;
        if (enhanced && pdLength < ENHANCED_HEADER_LENGTH) {
            throw new MpaProtocolException(dev.rdmafutures.Status.INVALID_NETWORK_RESPONSE,
                    "enhanced MPA message without its IRD/ORD header (private data length " + pdLength + ")");
        }
        in.position(start + HEADER_LENGTH);
        int ird = 0;
        int ord = 0;
        boolean p2p = false;
        int rtr = 0;
        if (enhanced) {
            int irdWord = in.getShort() & 0xFFFF;
            int ordWord = in.getShort() & 0xFFFF;
            ird = irdWord & LIMIT_MASK;
            ord = ordWord & LIMIT_MASK;
            p2p = (irdWord & IRD_PEER_TO_PEER) != 0;
            rtr = ((irdWord & IRD_SEND_RTR) != 0 ? RTR_SEND : 0) | ((ordWord & ORD_WRITE_RTR) != 0 ? RTR_WRITE : 0)
                    | ((ordWord & ORD_READ_RTR) != 0 ? RTR_READ : 0);
        }
        byte[] pd = new byte[pdLength - (enhanced ? ENHANCED_HEADER_LENGTH : 0)];
        in.get(pd);
        return new MpaMessage(expectReply, (flags & FLAG_MARKERS) != 0, (flags & FLAG_CRC) != 0,
                expectReply && (flags & FLAG_REJECT) != 0, revision, enhanced, ird, ord, p2p, rtr, pd);
    }

    private static void checkKeyPrefix(ByteBuffer in, boolean expectReply) throws MpaProtocolException {
        byte[] key = expectReply ? REPLY_KEY : REQUEST_KEY;
        int n = Math.min(in.remaining(), key.length);
        for (int i = 0; i < n; i++) {
            if (in.get(in.position() + i) != key[i]) {
                throw new MpaProtocolException(dev.rdmafutures.Status.INVALID_NETWORK_RESPONSE,
                        "peer did not send an MPA " + (expectReply ? "Reply" : "Request")
                                + " (key mismatch at byte " + i + ")");
            }
        }
    }
}
