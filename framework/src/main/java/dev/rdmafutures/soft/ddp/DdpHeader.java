package dev.rdmafutures.soft.ddp;

import java.nio.ByteBuffer;

/**
 * DDP segment headers with the RDMAP control byte (RFC 5041 section 4, RFC 5040 section 4): two control bytes,
 * then STag and tagged offset (tagged) or reserved-for-ULP, queue number, MSN and message offset (untagged).
 */
public final class DdpHeader {
    /** Tagged header: control (2), STag (4), tagged offset (8). */
    public static final int TAGGED_LENGTH = 14;
    /** Untagged header: control (2), reserved for ULP (4), queue number (4), MSN (4), message offset (4). */
    public static final int UNTAGGED_LENGTH = 18;

    static final int TAGGED = 0x80;
    static final int LAST = 0x40;
    static final int DDP_VERSION = 1;
    static final int RDMAP_VERSION = 1;

    /** RDMAP opcode of an RDMA Write. */
    public static final int OPCODE_RDMA_WRITE = 0;

    private DdpHeader() {
    }

    /** Writes an untagged header at {@code out}'s position. */
    public static void putUntagged(ByteBuffer out, int opcode, boolean last, int reservedForUlp, int queue, int msn,
                                   int messageOffset) {
        out.put((byte) ((last ? LAST : 0) | DDP_VERSION)).put((byte) ((RDMAP_VERSION << 6) | opcode))
                .putInt(reservedForUlp).putInt(queue).putInt(msn).putInt(messageOffset);
    }

    /** Writes a tagged header, last segment or not. */
    public static void putTagged(ByteBuffer out, int opcode, boolean last, int stag, long taggedOffset) {
        out.put((byte) (TAGGED | (last ? LAST : 0) | DDP_VERSION)).put((byte) ((RDMAP_VERSION << 6) | opcode))
                .putInt(stag).putLong(taggedOffset);
    }

    /** Whether the control byte {@code c0} (first of a DDP header) marks a tagged segment. */
    public static boolean isTagged(int c0) {
        return (c0 & TAGGED) != 0;
    }

    /** Whether the control byte {@code c0} marks the last segment of a message. */
    public static boolean isLast(int c0) {
        return (c0 & LAST) != 0;
    }

    /** The RDMAP opcode in the second control byte {@code c1}. */
    public static int opcode(int c1) {
        return c1 & 0x0F;
    }

    /** Whether both control bytes carry the versions we speak (DDP 1, RDMAP 1). */
    public static boolean versionsSupported(int c0, int c1) {
        return (c0 & 0x03) == DDP_VERSION && (c1 >>> 6) == RDMAP_VERSION;
    }

    /** A whole zero-length RDMA Write ULPDU, the ready-to-receive message of RFC 6581 that we send. */
    public static ByteBuffer zeroLengthWrite() {
        ByteBuffer b = ByteBuffer.allocate(TAGGED_LENGTH);
        putTagged(b, OPCODE_RDMA_WRITE, true, 0, 0L);
        return b.flip();
    }

    /** Whether {@code ulpdu} is a zero-length RDMA Write: a tagged last segment with no payload. */
    public static boolean isZeroLengthWrite(ByteBuffer ulpdu) {
        int c0 = ulpdu.get(ulpdu.position()) & 0xFF;
        int c1 = ulpdu.get(ulpdu.position() + 1) & 0xFF;
        return ulpdu.remaining() == TAGGED_LENGTH && isTagged(c0) && isLast(c0) && versionsSupported(c0, c1)
                && opcode(c1) == OPCODE_RDMA_WRITE;
    }
}
