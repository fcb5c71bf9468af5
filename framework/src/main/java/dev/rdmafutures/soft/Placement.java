package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Where inbound payload goes: tagged segments (RDMA Writes, Read Responses) into the region their STag names, once
 * that region is valid, grants the right and covers the bytes; untagged Sends into the posted receives, in order.
 * Any violation terminates the connection before a byte moves, so nothing outside a region is ever touched. The
 * segment's {@link #target()} is a reused view of the region. Poller thread only.
 */
final class Placement {
    private final SoftQueuePair queuePair;
    private final RegionTable regions;
    private final ArrayDeque<WorkRequest> receives = new ArrayDeque<>();
    private int expectedSendMsn = 1;
    /** Where the current segment's payload goes, or null when it has none. */
    private ByteBuffer target;
    /** The region the last payload was placed into, and a view of it to reuse. */
    private SoftRegion targetRegion;
    private ByteBuffer targetView;
    /** The region the last inbound STag named: lookups of the same STag skip the device's table. */
    private SoftRegion lastLookup;

    Placement(SoftQueuePair queuePair, RegionTable regions) {
        this.queuePair = queuePair;
        this.regions = regions;
    }

    /** Where the current segment's payload goes, positioned at its first byte; null when it has none. */
    ByteBuffer target() {
        return target;
    }

    /** The current segment is done: its payload goes nowhere more. */
    void segmentDone() {
        target = null;
    }

    /** Places an RDMA Write segment; false if it terminated the connection. */
    boolean placeWrite(int stag, long taggedOffset, int length) {
        if (length == 0) {
            target = null; // a zero-length write touches nothing and needs no valid STag
            return true;
        }
        SoftRegion region = lookup(stag);
        Terminate refusal = check(region, Access.REMOTE_WRITE, taggedOffset, length);
        if (refusal != null) {
            return queuePair.terminate(refusal, String.format("RDMA Write to STag %08x [%d, +%d]", stag,
                    taggedOffset, length));
        }
        placeInto(region, (int) taggedOffset, length);
        return true;
    }

    /** Places a segment of {@code read}'s Read Response; false if it terminated the connection. */
    boolean placeReadResponse(WorkRequest read, int stag, long taggedOffset, int length) {
        if (stag != read.region(0).token()) {
            return queuePair.terminate(Terminate.INVALID_STAG, "Read Response to the wrong sink STag");
        }
        long end = (long) read.offset(0) + read.length();
        if (taggedOffset < read.offset(0) || taggedOffset > end - length) {
            return queuePair.terminate(Terminate.BASE_OR_BOUNDS, "Read Response outside the read's sink buffer");
        }
        placeInto((SoftRegion) read.region(0), (int) taggedOffset, length);
        return true;
    }

    /** Posts a receive buffer for a Send. */
    void post(WorkRequest receive) {
        receives.add(receive);
    }

    boolean hasReceive() {
        return !receives.isEmpty();
    }

    /** Checks a Send segment's queue and MSN; false if it terminated the connection. */
    boolean acceptSend(int queue, int msn) {
        if (queue != Rdmap.QUEUE_SEND) {
            return queuePair.terminate(Terminate.INVALID_QUEUE, "Send on queue " + queue);
        }
        if (msn != expectedSendMsn) {
            return queuePair.terminate(Terminate.INVALID_MSN, "Send MSN " + msn + ", expected " + expectedSendMsn);
        }
        return true;
    }

    /**
     * Places a Send segment of {@code length} bytes at {@code messageOffset} into the oldest receive; a message
     * that does not fit fails the receive and terminates the connection (false).
     */
    boolean placeSend(int messageOffset, int length) {
        WorkRequest rx = receives.peek();
        if (messageOffset < 0 || (long) messageOffset + length > rx.length()) {
            receives.poll().completion().failed(new RdmaException(Status.BUFFER_OVERFLOW, "a Send of at least "
                    + (messageOffset + length) + " bytes does not fit the posted receive of " + rx.length()));
            return queuePair.terminate(Terminate.MESSAGE_TOO_LONG, "Send of at least " + (messageOffset + length)
                    + " bytes into a receive of " + rx.length());
        }
        placeInto((SoftRegion) rx.region(0), rx.offset(0) + messageOffset, length);
        return true;
    }

    /**
     * A Send's last segment is placed: its receive completes with the message's {@code bytes}, after invalidating
     * {@code invalidateStag} for the Send-with-Invalidate forms ({@code opcode}).
     */
    void sendDone(int opcode, int bytes, int invalidateStag) {
        WorkRequest rx = receives.poll();
        expectedSendMsn++;
        if (!Rdmap.invalidates(opcode)) {
            rx.completion().completed(bytes);
            return;
        }
        SoftRegion region = regions.lookup(invalidateStag);
        if (region == null) {
            rx.completion().failed(new RdmaException(Status.ACCESS_VIOLATION, String.format(
                    "peer asked to invalidate STag %08x, which is not valid here", invalidateStag)));
            queuePair.terminate(Terminate.CANNOT_INVALIDATE, "Send with Invalidate of an unknown STag");
            return;
        }
        region.invalidate();
        rx.completion().completedWithInvalidate(bytes, invalidateStag);
    }

    /** The valid region with {@code token}, or null; repeated lookups of one STag skip the device's table. */
    SoftRegion lookup(int token) {
        SoftRegion r = lastLookup;
        if (r == null || r.token() != token || !r.isValid()) {
            r = regions.lookup(token);
            lastLookup = r;
        }
        return r;
    }

    /** Null when {@code region} grants {@code right} over [offset, offset + length), else the Terminate to send. */
    static Terminate check(SoftRegion region, Access right, long offset, int length) {
        if (region == null || !region.isValid()) {
            return Terminate.INVALID_STAG;
        }
        if (!region.allows(right)) {
            return Terminate.ACCESS_RIGHTS;
        }
        if (offset < 0 || offset > region.length() - length) { // no offset + length: a peer can overflow it
            return Terminate.BASE_OR_BOUNDS;
        }
        return null;
    }

    /** Targets {@code length} bytes of {@code region} from {@code offset}; nothing when {@code length} is 0. */
    private void placeInto(SoftRegion region, int offset, int length) {
        if (length == 0) {
            target = null;
            return;
        }
        if (region != targetRegion) {
            targetRegion = region;
            targetView = region.bytes();
        }
        target = targetView.clear().position(offset).limit(offset + length);
    }

    /** Ends placement: every posted receive fails with {@code canceled}. */
    void flush(RdmaException canceled) {
        for (WorkRequest r : receives) {
            r.completion().failed(canceled);
        }
        receives.clear();
    }
}
