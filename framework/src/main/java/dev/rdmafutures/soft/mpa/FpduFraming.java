package dev.rdmafutures.soft.mpa;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * MPA's framing of an established stream (RFC 5044 section 4): each FPDU is a 16-bit ULPDU length, the ULPDU (a
 * DDP segment), pad to a 4-byte boundary, and a CRC32c over all of that (zero when CRC was not negotiated).
 * Markers are not supported: connection setup refuses peers that ask for them.
 */
public final class FpduFraming {
    /** Bytes before the ULPDU. */
    public static final int LENGTH_FIELD = 2;
    /** Bytes of the CRC trailer, present with or without CRC. */
    public static final int CRC_FIELD = 4;

    private final boolean crcEnabled;
    private final CRC32C crc = new CRC32C();

    /** Framing with or without CRC32c. */
    public FpduFraming(boolean crcEnabled) {
        this.crcEnabled = crcEnabled;
    }

    /** Whether CRC32c is computed and checked. */
    public boolean crcEnabled() {
        return crcEnabled;
    }

    /** The pad that brings length field plus ULPDU to a multiple of 4. */
    public static int padFor(int ulpduLength) {
        return -(LENGTH_FIELD + ulpduLength) & 3;
    }

    /** The whole FPDU's size on the wire for a ULPDU of {@code ulpduLength} bytes. */
    public static int fpduLength(int ulpduLength) {
        return LENGTH_FIELD + ulpduLength + padFor(ulpduLength) + CRC_FIELD;
    }

    /** Frames {@code ulpdu} (consumed) into {@code out}, which needs {@link #fpduLength} bytes of room. */
    public void frame(ByteBuffer ulpdu, ByteBuffer out) {
        int start = out.position();
        out.putShort((short) ulpdu.remaining()).put(ulpdu);
        finish(out, start);
    }

    /** Frames {@code ulpdu} (consumed) into a buffer of its own, ready to send: the RTR and Terminate messages. */
    public ByteBuffer frame(ByteBuffer ulpdu) {
        ByteBuffer fpdu = ByteBuffer.allocate(fpduLength(ulpdu.remaining()));
        frame(ulpdu, fpdu);
        return fpdu.flip();
    }

    /**
     * Ends, in place, the FPDU whose length field and ULPDU are the bytes of {@code fpdu} from {@code start} to its
     * position: appends the pad and the CRC there, so a small FPDU leaves in one plain write.
     */
    public void finish(ByteBuffer fpdu, int start) {
        int pad = padFor(fpdu.position() - start - LENGTH_FIELD);
        for (int i = 0; i < pad; i++) {
            fpdu.put((byte) 0);
        }
        fpdu.putInt(crcEnabled ? wireCrc(fpdu, start, fpdu.position() - start) : 0);
    }

    /**
     * Writes the pad and CRC that end an FPDU with a ULPDU of {@code ulpduLength} bytes into {@code into}.
     * {@code covered} holds the CRC32c of the FPDU's bytes so far, length field first (ignored without CRC). This lets
     * a sender gather header, payload views straight from registered memory (any number of them) and trailer into
     * one write without copying the payload.
     */
    public void trailer(CRC32C covered, int ulpduLength, ByteBuffer into) {
        int pad = padFor(ulpduLength);
        int start = into.position();
        for (int i = 0; i < pad; i++) {
            into.put((byte) 0);
        }
        int value = 0;
        if (crcEnabled) {
            update(covered, into, start, pad);
            value = wireValue(covered);
        }
        into.putInt(value);
    }

    /** Adds {@code length} bytes of {@code b} from {@code offset} to {@code crc}, leaving {@code b} as it was. */
    public static void update(CRC32C crc, ByteBuffer b, int offset, int length) {
        int position = b.position();
        int limit = b.limit();
        b.limit(offset + length).position(offset);
        crc.update(b);
        b.limit(limit).position(position);
    }

    /** The wire form of a CRC32c register value: least significant byte first, read as a big-endian int. */
    public static int wireValue(CRC32C finished) {
        return Integer.reverseBytes((int) finished.getValue());
    }

    /**
     * If {@code in} holds a whole FPDU at its position, checks it and returns its ULPDU as a slice, advancing
     * {@code in} past the FPDU; returns null, consuming nothing, when more bytes are needed.
     *
     * @param maxUlpdu the largest ULPDU this side accepts
     * @throws MpaProtocolException for a ULPDU too large or too small, or a CRC mismatch
     */
    public ByteBuffer unframe(ByteBuffer in, int minUlpdu, int maxUlpdu) throws MpaProtocolException {
        if (in.remaining() < LENGTH_FIELD) {
            return null;
        }
        int start = in.position();
        int ulpduLength = in.getShort(start) & 0xFFFF;
        if (ulpduLength < minUlpdu || ulpduLength > maxUlpdu) {
            throw new MpaProtocolException(dev.rdmafutures.Status.INVALID_NETWORK_RESPONSE,
                    "FPDU with ULPDU length " + ulpduLength + " outside " + minUlpdu + ".." + maxUlpdu);
        }
        int total = fpduLength(ulpduLength);
        if (in.remaining() < total) {
            return null;
        }
        int covered = total - CRC_FIELD;
        int received = in.getInt(start + covered);
        if (crcEnabled) {
            int expected = wireCrc(in, start, covered);
            if (expected != received) {
                throw new MpaProtocolException(dev.rdmafutures.Status.INVALID_NETWORK_RESPONSE,
                        String.format("FPDU CRC32c mismatch: received %08x, computed %08x", received, expected));
            }
        }
        ByteBuffer ulpdu = in.slice(start + LENGTH_FIELD, ulpduLength);
        in.position(start + total);
        return ulpdu;
    }

    /**
     * The CRC field as a big-endian int. The CRC32c value goes on the wire least significant byte first (iSCSI's
     * convention, which Linux siw follows: its crc32c finaliser stores the value little-endian), hence the swap.
     */
    private int wireCrc(ByteBuffer b, int offset, int length) {
        crc.reset();
        update(crc, b, offset, length);
        return wireValue(crc);
    }
}
