package dev.rdmafutures.soft;

import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.rdmap.Rdmap;
import java.nio.ByteBuffer;

/**
 * Frames outbound DDP segments into a connection's {@link OutboundQueue} without allocating: headers in pooled
 * scratch buffers, payloads of up to {@value #INLINE_PAYLOAD} bytes copied behind them, larger payloads queued as
 * views of registered memory with a separate trailer. Messages longer than {@value #MAX_SEGMENT_PAYLOAD} bytes are
 * cut into segments. Poller thread only.
 */
final class FpduWriter {
    /** The most payload one FPDU carries, so that any ULPDU fits MPA's 16-bit length. */
    static final int MAX_SEGMENT_PAYLOAD = 65504;
    /** Payloads up to this size travel inside their FPDU's scratch buffer (see {@link #emit}). */
    static final int INLINE_PAYLOAD = 64;

    private final OutboundQueue out;
    private final FpduFraming framing;

    FpduWriter(OutboundQueue out, FpduFraming framing) {
        this.out = out;
        this.framing = framing;
    }

    /** Every byte queued so far: where the last queued FPDU ends in the stream. */
    long enqueuedBytes() {
        return out.enqueuedBytes();
    }

    /** A scratch buffer for an FPDU header, positioned after the length field. */
    ByteBuffer header() {
        return out.scratch().position(FpduFraming.LENGTH_FIELD);
    }

    /**
     * Queues one FPDU: header (length field at 0 filled in here), {@code length} payload bytes of {@code payload}
     * from {@code offset}, pad and CRC. A payload of up to {@value #INLINE_PAYLOAD} bytes is copied behind the header,
     * so the FPDU is one buffer (a latency-bound round trip then costs one plain write); a larger one is queued as a
     * view of the registered memory and gathered, never copied.
     */
    void emit(ByteBuffer head, SoftRegion payload, int offset, int length) {
        head.putShort(0, (short) (head.position() - FpduFraming.LENGTH_FIELD + length));
        if (length <= INLINE_PAYLOAD) {
            if (length > 0) {
                payload.copyTo(offset, head, length);
            }
            framing.finish(head, 0);
            out.addScratch(head.flip());
            return;
        }
        head.flip();
        out.addScratch(head);
        ByteBuffer view = out.addView(payload, offset, length);
        ByteBuffer trailer = out.scratch();
        framing.trailer(head, view, trailer);
        out.addScratch(trailer.flip());
    }

    /**
     * Queues a tagged message (RDMA Write, Read Response) of {@code length} bytes of {@code source} from
     * {@code sourceOffset}, placed at {@code stag}/{@code taggedOffset} on the peer.
     */
    void tagged(int opcode, int stag, long taggedOffset, SoftRegion source, int sourceOffset, int length) {
        segments(true, opcode, stag, taggedOffset, 0, source, sourceOffset, length);
    }

    /**
     * Queues a Send form ({@code opcode}) numbered {@code msn} on the Send queue, with {@code invalidate} in its
     * reserved-for-ULP field, of {@code length} bytes of {@code source} from {@code sourceOffset}.
     */
    void send(int opcode, int invalidate, int msn, SoftRegion source, int sourceOffset, int length) {
        segments(false, opcode, invalidate, 0, msn, source, sourceOffset, length);
    }

    /** Cuts a message into FPDUs whose payloads are views of the registered memory. */
    private void segments(boolean tagged, int opcode, int stag, long taggedOffset, int msn, SoftRegion source,
                          int sourceOffset, int length) {
        int offset = 0;
        do {
            int n = Math.min(MAX_SEGMENT_PAYLOAD, length - offset);
            boolean last = offset + n == length;
            ByteBuffer head = header();
            if (tagged) {
                DdpHeader.putTagged(head, opcode, last, stag, taggedOffset + offset);
            } else {
                DdpHeader.putUntagged(head, opcode, last, stag, Rdmap.QUEUE_SEND, msn, offset);
            }
            emit(head, source, sourceOffset + offset, n);
            offset += n;
        } while (offset < length);
    }
}
