package dev.rdmafutures.soft.rdmap;

import dev.rdmafutures.Status;
import dev.rdmafutures.soft.ddp.DdpHeader;
import java.nio.ByteBuffer;

/**
 * A Terminate message's control word (RFC 5040 section 4.8): layer, error type and error code, plus the
 * {@link Status} each maps to. We send the control word without copies of the offending headers (HdrCt 0).
 *
 * @param layer     0 RDMAP, 1 DDP, 2 MPA
 * @param errorType the layer's error type
 * @param errorCode the layer's error code
 */
public record Terminate(int layer, int errorType, int errorCode) {
    /** Bytes of the control word. */
    public static final int LENGTH = 4;

    /**
     * RDMAP, Local Catastrophic Error, code 0x00: a two-phase initiator's deadline to complete passed, so it will
     * never send its ready-to-receive message. It is sent in the RTR's place, as the stream's only FPDU, before the
     * initiator closes. A responder waiting for the RTR fails its accept with IO_TIMEOUT (NdkAcceptEx) on exactly
     * this control word; a close, a reset or a reject still fails it with CONNECTION_ABORTED, and any other FPDU
     * with INVALID_NETWORK_RESPONSE.
     *
     * <p>Why this word: of RFC 5040's RDMAP error types (sections 4.8 and 7), Remote Protection and Remote
     * Operation errors report a fault in a message the receiver sent, while a Local Catastrophic Error is the
     * sender's own; here the sender's deadline passed and the receiver did nothing wrong. The registry (RFC 6580)
     * gives every code of that type the one meaning, so code 0x00 claims nothing else. Linux siw sends this type
     * with code 0xff for its own local failures, which therefore do not read as a timeout; a peer that knows nothing
     * of this use sees an ordinary catastrophic Terminate and closes.
     */
    public static final Terminate PENDING_EXPIRED = new Terminate(0, 0, 0x00);
    /** RDMAP: the STag is not valid. */
    public static final Terminate INVALID_STAG = new Terminate(0, 1, 0x00);
    /** RDMAP: the access falls outside the region. */
    public static final Terminate BASE_OR_BOUNDS = new Terminate(0, 1, 0x01);
    /** RDMAP: the STag lacks the access right. */
    public static final Terminate ACCESS_RIGHTS = new Terminate(0, 1, 0x02);
    /** RDMAP: the STag is not associated with this stream (a memory window bound on another connection). */
    public static final Terminate STAG_NOT_ASSOCIATED = new Terminate(0, 1, 0x03);
    /** RDMAP: the STag cannot be invalidated. */
    public static final Terminate CANNOT_INVALIDATE = new Terminate(0, 1, 0x09);
    /** RDMAP: an opcode that is not allowed here. */
    public static final Terminate UNEXPECTED_OPCODE = new Terminate(0, 2, 0x06);
    /** RDMAP: a catastrophic error localized to this stream (e.g. more reads than IRD allows). */
    public static final Terminate STREAM_CATASTROPHIC = new Terminate(0, 2, 0x07);
    /** DDP untagged: no buffer posted for the message. */
    public static final Terminate NO_BUFFER = new Terminate(1, 2, 0x02);
    /** DDP untagged: MSN out of range. */
    public static final Terminate INVALID_MSN = new Terminate(1, 2, 0x03);
    /** DDP untagged: invalid queue number. */
    public static final Terminate INVALID_QUEUE = new Terminate(1, 2, 0x01);
    /** DDP untagged: message too long for the posted buffer. */
    public static final Terminate MESSAGE_TOO_LONG = new Terminate(1, 2, 0x05);
    /** DDP: unsupported DDP version. */
    public static final Terminate DDP_VERSION = new Terminate(1, 2, 0x06);
    /** MPA: CRC error. */
    public static final Terminate MPA_CRC = new Terminate(2, 0, 0x02);
    /** MPA: a malformed FPDU. */
    public static final Terminate MPA_FRAMING = new Terminate(2, 0, 0x04);

    /** The control word, HdrCt 0. */
    public void encode(ByteBuffer out) {
        out.putInt((layer & 0xF) << 28 | (errorType & 0xF) << 24 | (errorCode & 0xFF) << 16);
    }

    /** A whole Terminate ULPDU with this control word (untagged, queue 2, MSN 1): a stream's last message. */
    public ByteBuffer message() {
        ByteBuffer ulpdu = ByteBuffer.allocate(DdpHeader.UNTAGGED_LENGTH + LENGTH);
        DdpHeader.putUntagged(ulpdu, Rdmap.TERMINATE, true, 0, Rdmap.QUEUE_TERMINATE, 1, 0);
        encode(ulpdu);
        return ulpdu.flip();
    }

    /** The control word of {@code ulpdu} if it is a Terminate message, else null; {@code ulpdu} is not moved. */
    public static Terminate carriedBy(ByteBuffer ulpdu) {
        int p = ulpdu.position();
        if (ulpdu.remaining() < DdpHeader.UNTAGGED_LENGTH + LENGTH) {
            return null;
        }
        int c0 = ulpdu.get(p) & 0xFF;
        int c1 = ulpdu.get(p + 1) & 0xFF;
        if (DdpHeader.isTagged(c0) || !DdpHeader.versionsSupported(c0, c1) || DdpHeader.opcode(c1) != Rdmap.TERMINATE) {
            return null;
        }
        return decode(ulpdu.slice(p + DdpHeader.UNTAGGED_LENGTH, LENGTH));
    }

    /** Reads a control word. */
    public static Terminate decode(ByteBuffer in) {
        int word = in.getInt();
        return new Terminate(word >>> 28, (word >>> 24) & 0xF, (word >>> 16) & 0xFF);
    }

    /** How the operation that caused it fails. */
    public Status status() {
        if (layer == 0 && errorType == 1) {
            return errorCode == 0x01 ? Status.REMOTE_RESOURCES : Status.ACCESS_VIOLATION;
        }
        if (layer == 1 && errorType == 1) {
            return errorCode == 0x01 ? Status.REMOTE_RESOURCES : Status.ACCESS_VIOLATION;
        }
        if (equals(MESSAGE_TOO_LONG)) {
            return Status.BUFFER_OVERFLOW;
        }
        return Status.INVALID_NETWORK_RESPONSE;
    }

    @Override
    public String toString() {
        String[] layers = {"RDMAP", "DDP", "MPA"};
        return String.format("Terminate[%s type %d code 0x%02x]", layer < 3 ? layers[layer] : "layer " + layer,
                errorType, errorCode);
    }
}
