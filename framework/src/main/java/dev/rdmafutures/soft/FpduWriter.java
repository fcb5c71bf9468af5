package dev.rdmafutures.soft;

import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Frames outbound DDP segments into a connection's {@link OutboundQueue} without allocating: an FPDU with a payload
 * of up to {@value #INLINE_PAYLOAD} bytes whole in the queue's frame buffer, behind the FPDU queued before it; a
 * larger one as a header in a pooled scratch buffer, its payload as views of registered memory and a separate
 * trailer. A message is a request's segments gathered in order (its
 * scatter-gather list) or one span of a region (a Read Response); messages longer than {@value #MAX_SEGMENT_PAYLOAD}
 * bytes are cut into DDP segments, and one DDP segment's payload may span several views, all of which its MPA CRC
 * covers. Poller thread only.
 */
final class FpduWriter {
    /** The most payload one FPDU carries, so that any ULPDU fits MPA's 16-bit length. */
    static final int MAX_SEGMENT_PAYLOAD = 65504;
    /** FPDUs with payloads up to this size are framed whole in the queue's frame buffer (see {@link #emit}). */
    static final int INLINE_PAYLOAD = 64;

    private final OutboundQueue out;
    private final FpduFraming framing;
    private final CRC32C crc = new CRC32C();
    // The message being framed: a request's segments, or (gather == null) one span of a region.
    private WorkRequest gather;
    private SoftRegion span;
    private int spanOffset;
    private int spanLength;
    /** The segment the next payload byte comes from, and how many of its bytes are already queued. */
    private int index;
    private int within;
    /** Where the FPDU being framed starts in the buffer {@link #header} or {@link #scratchHeader} gave. */
    private int start;
    /** That buffer is the queue's frame buffer, which takes whole FPDUs only. */
    private boolean framed;

    FpduWriter(OutboundQueue out, FpduFraming framing) {
        this.out = out;
        this.framing = framing;
    }

    /** Every byte queued so far: where the last queued FPDU ends in the stream. */
    long enqueuedBytes() {
        return out.enqueuedBytes();
    }

    /**
     * A buffer for the header of an FPDU whose payload is at most {@value #INLINE_PAYLOAD} bytes, positioned after its
     * length field; to fill and hand to {@link #control} (or {@link #emit}) before anything else is framed.
     */
    ByteBuffer header() {
        ByteBuffer frames = out.frame();
        start = frames.position();
        framed = true;
        return frames.position(start + FpduFraming.LENGTH_FIELD);
    }

    /** A scratch buffer for the header of an FPDU with a larger payload, positioned after the length field. */
    private ByteBuffer scratchHeader() {
        start = 0;
        framed = false;
        return out.scratch().position(FpduFraming.LENGTH_FIELD);
    }

    /** Queues an FPDU without payload (a Read Request): {@code head} as {@link #header()} gave it, filled in. */
    void control(ByteBuffer head) {
        emit(head, 0);
    }

    /**
     * Queues a tagged message (RDMA Write) gathering {@code source}'s segments in order, placed at {@code stag}/
     * {@code taggedOffset} on the peer.
     */
    void tagged(int opcode, int stag, long taggedOffset, WorkRequest source) {
        gather = source;
        segments(true, opcode, stag, taggedOffset, 0, source.length());
    }

    /**
     * Queues a tagged message (Read Response) of {@code length} bytes of {@code source} from {@code sourceOffset},
     * placed at {@code stag}/{@code taggedOffset} on the peer. {@code source} may be null when {@code length} is 0.
     */
    void tagged(int opcode, int stag, long taggedOffset, SoftRegion source, int sourceOffset, int length) {
        gather = null;
        span = source;
        spanOffset = sourceOffset;
        spanLength = length;
        segments(true, opcode, stag, taggedOffset, 0, length);
        span = null;
    }

    /**
     * Queues a Send form ({@code opcode}) numbered {@code msn} on the Send queue, with {@code invalidate} in its
     * reserved-for-ULP field, gathering {@code source}'s segments in order.
     */
    void send(int opcode, int invalidate, int msn, WorkRequest source) {
        gather = source;
        segments(false, opcode, invalidate, 0, msn, source.length());
    }

    /** Cuts the message into FPDUs of at most {@value #MAX_SEGMENT_PAYLOAD} payload bytes. */
    private void segments(boolean tagged, int opcode, int stag, long taggedOffset, int msn, int length) {
        index = 0;
        within = 0;
        int offset = 0;
        do {
            int n = Math.min(MAX_SEGMENT_PAYLOAD, length - offset);
            boolean last = offset + n == length;
            ByteBuffer head = n <= INLINE_PAYLOAD ? header() : scratchHeader();
            if (tagged) {
                DdpHeader.putTagged(head, opcode, last, stag, taggedOffset + offset);
            } else {
                DdpHeader.putUntagged(head, opcode, last, stag, Rdmap.QUEUE_SEND, msn, offset);
            }
            emit(head, n);
            offset += n;
        } while (offset < length);
        gather = null;
    }

    /**
     * Queues one FPDU: header (its length field, at {@link #start}, filled in here), the message's next {@code length}
     * payload bytes, pad and CRC. A payload of up to {@value #INLINE_PAYLOAD} bytes is copied behind the header, so
     * the FPDU is framed whole in the queue's frame buffer (a latency-bound round trip then costs one plain write, a
     * burst one buffer); a larger one is queued as views of the
     * registered memory, one per segment it spans, and gathered, never copied, except a Read Response's with CRC
     * on, which is CRC'd and sent from one copy.
     */
    private void emit(ByteBuffer head, int length) {
        int ulpdu = head.position() - start - FpduFraming.LENGTH_FIELD + length;
        head.putShort(start, (short) ulpdu);
        if (length <= INLINE_PAYLOAD) {
            for (int left = length; left > 0; ) {
                int n = nextPiece(left);
                region().copyTo(offset() + within, head, n);
                within += n;
                left -= n;
            }
            framing.finish(head, start);
            out.commitFrame(head);
            return;
        }
        if (framed) {
            throw new IllegalStateException("a payload of " + length + " bytes behind a header in a frame buffer");
        }
        head.flip();
        out.addScratch(head);
        boolean crcOn = framing.crcEnabled();
        if (crcOn) {
            crc.reset();
            FpduFraming.update(crc, head, 0, head.limit());
        }
        if (crcOn && gather == null) {
            // A Read Response: the responder's owner may change these bytes while they wait for the socket, which
            // RDMA allows (the reader gets what was there). A CRC over live memory would then not match what is
            // sent and break the connection, so the CRC and the socket both take one copy.
            ByteBuffer copy = out.copyBuffer(length);
            for (int left = length; left > 0; ) {
                int n = nextPiece(left);
                region().copyTo(offset() + within, copy, n);
                within += n;
                left -= n;
            }
            out.addCopy(copy.flip());
            FpduFraming.update(crc, copy, 0, length);
        } else {
            for (int left = length; left > 0; ) {
                int n = nextPiece(left);
                ByteBuffer view = out.addView(region(), offset() + within, n);
                if (crcOn) {
                    FpduFraming.update(crc, view, view.position(), n);
                }
                within += n;
                left -= n;
            }
        }
        ByteBuffer trailer = out.scratch();
        framing.trailer(crc, ulpdu, trailer);
        out.addTrailer(trailer.flip());
    }

    /** Moves past exhausted (or empty) segments; returns how many of {@code wanted} bytes the current one has. */
    private int nextPiece(int wanted) {
        while (within == segmentLength()) {
            index++;
            within = 0;
        }
        return Math.min(wanted, segmentLength() - within);
    }

    private SoftRegion region() {
        return gather != null ? (SoftRegion) gather.region(index) : span;
    }

    private int offset() {
        return gather != null ? gather.offset(index) : spanOffset;
    }

    private int segmentLength() {
        return gather != null ? gather.segmentLength(index) : spanLength;
    }
}
