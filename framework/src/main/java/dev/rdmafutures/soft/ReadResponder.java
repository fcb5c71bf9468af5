package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import java.nio.ByteBuffer;

/**
 * Answers the peer's RDMA Read Requests: each is checked (queue, MSN, our inbound read limit IRD, and through
 * {@link Placement#resolve} the source STag: a region's or a window's, its right and bounds) as soon as its header
 * is parsed, and answered with a Read Response straight from the
 * registered memory once its CRC checked out. A request is outstanding until the transport took its response's
 * last byte; more than IRD outstanding terminates the connection. Poller thread only.
 */
final class ReadResponder {
    private final SoftQueuePair queuePair;
    private final Placement placement;
    private final FpduWriter writer;
    private final int inboundLimit;
    /** Where each Read Response we queued ends in the outbound stream: at most IRD of them, oldest first. */
    private final long[] responseEnds;
    private int responsesHead;
    private int responsesInFlight;
    private int expectedMsn = 1;
    // The checked Read Request, answered once its CRC checks out.
    private int sinkStag;
    private long sinkOffset;
    private int size;
    /** The bytes to answer with: a region (that a window may have named) and its first byte. */
    private SoftRegion source;
    private int sourceOffset;

    ReadResponder(SoftQueuePair queuePair, Placement placement, FpduWriter writer, int inboundLimit) {
        this.queuePair = queuePair;
        this.placement = placement;
        this.writer = writer;
        this.inboundLimit = inboundLimit;
        this.responseEnds = new long[Math.max(1, inboundLimit)];
    }

    /**
     * Checks the Read Request whose fields start at {@code control} in {@code staging}; false if it terminated the
     * connection.
     */
    boolean accept(ByteBuffer staging, int control, int queue, int msn) {
        if (queue != Rdmap.QUEUE_READ_REQUEST) {
            return queuePair.terminate(Terminate.INVALID_QUEUE, "Read Request on queue " + queue);
        }
        if (msn != expectedMsn) {
            return queuePair.terminate(Terminate.INVALID_MSN, "Read Request MSN " + msn + ", expected " + expectedMsn);
        }
        if (responsesInFlight >= inboundLimit) {
            return queuePair.terminate(Terminate.STREAM_CATASTROPHIC, "peer exceeded our inbound read limit of "
                    + inboundLimit);
        }
        int requestedSinkStag = staging.getInt(control);
        long requestedSinkOffset = staging.getLong(control + 4);
        int requestedSize = staging.getInt(control + 12);
        int sourceStag = staging.getInt(control + 16);
        long requestedSourceOffset = staging.getLong(control + 20);
        if (requestedSize < 0) {
            return queuePair.terminate(Terminate.BASE_OR_BOUNDS, "Read Request of " + (requestedSize & 0xFFFFFFFFL)
                    + " bytes");
        }
        SoftRegion region = null;
        int offset = 0;
        if (requestedSize > 0) {
            Terminate refusal = placement.resolve(sourceStag, Access.REMOTE_READ, requestedSourceOffset,
                    requestedSize);
            if (refusal != null) {
                return queuePair.terminate(refusal, placement.countsAgainstPeer(refusal, sourceStag),
                        String.format("RDMA Read of STag %08x [%d, +%d]", sourceStag,
                        requestedSourceOffset, requestedSize));
            }
            region = placement.resolvedRegion();
            offset = placement.resolvedOffset();
        }
        sinkStag = requestedSinkStag;
        sinkOffset = requestedSinkOffset;
        size = requestedSize;
        source = region;
        sourceOffset = offset;
        return true;
    }

    /** The accepted request's CRC checked out: queue its response. */
    void answer() {
        expectedMsn++;
        writer.tagged(Rdmap.READ_RESPONSE, sinkStag, sinkOffset, source, sourceOffset, size);
        responseEnds[(responsesHead + responsesInFlight++) % responseEnds.length] = writer.enqueuedBytes();
        source = null;
    }

    /** The transport took everything up to {@code flushed}: responses that end there no longer count against IRD. */
    void onFlushed(long flushed) {
        while (responsesInFlight > 0 && responseEnds[responsesHead] <= flushed) {
            responsesHead = (responsesHead + 1) % responseEnds.length;
            responsesInFlight--;
        }
    }
}
