package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Where inbound payload goes: tagged segments into the memory their STag names (RDMA Writes, once {@link #resolve}
 * found the STag valid, granting the right and covering the bytes: a region, or the bound span of a memory window
 * bound on this connection) or scattered over a read's segments in order (Read Responses, which must name the read's
 * first segment and continue where the last one ended); untagged Sends scattered over the segments of a receive, by
 * message offset; a Send with Invalidate revokes a region, or a window bound on this connection. A Send's receive is
 * taken at its message's first segment and kept until its last: from the connection's own queue, or from a
 * {@link SoftSharedReceiveQueue}, whose receives then report the connection they arrived on. Any violation
 * terminates the connection before a byte moves, so nothing outside a region (or a window's span) is ever touched;
 * an STag is checked once per DDP segment, as siw does. The segment's {@link #target()} is a reused view of a region.
 * Poller thread only.
 */
final class Placement {
    private final SoftQueuePair queuePair;
    private final RegionTable regions;
    /** This connection, as the windows bound on it know it. */
    private final SoftWindow.Scope scope;
    /** The shared receive queue Sends take their receives from, or null for {@link #receives}. */
    private final SoftSharedReceiveQueue shared;
    /** What a shared queue's receive reports it arrived on: the core's events of this connection. */
    private final ConnectionEvents connectionEvents;
    private final ArrayDeque<WorkRequest> receives = new ArrayDeque<>();
    private final RegionViews views = new RegionViews();
    private int expectedSendMsn = 1;
    /** The receive the current Send message fills, taken at its first segment; null between messages. */
    private WorkRequest receive;
    /** The piece of a region the current segment's payload goes to next, or null. */
    private ByteBuffer target;
    /** The request the current segment is scattered over (null for an RDMA Write), where, and what is left. */
    private WorkRequest scatter;
    private int scatterIndex;
    private int scatterWithin;
    private int untargeted;
    /** The entry the last inbound STag named: lookups of the same STag index skip the device's table. */
    private SoftStag lastLookup;
    /** The region and its first byte that the last successful {@link #resolve} names. */
    private SoftRegion resolvedRegion;
    private int resolvedOffset;

    Placement(SoftQueuePair queuePair, RegionTable regions, SoftWindow.Scope scope, SoftSharedReceiveQueue shared,
              ConnectionEvents connectionEvents) {
        this.queuePair = queuePair;
        this.regions = regions;
        this.scope = scope;
        this.shared = shared;
        this.connectionEvents = connectionEvents;
    }

    /**
     * Where the current segment's next payload bytes go: a view positioned at the first of them, with room for at
     * least one while payload remains; null when the segment has no (more) payload.
     */
    ByteBuffer target() {
        if (target != null && target.hasRemaining()) {
            return target;
        }
        if (untargeted == 0) {
            return null;
        }
        WorkRequest r = scatter;
        while (scatterWithin == r.segmentLength(scatterIndex)) { // past full and empty segments
            scatterIndex++;
            scatterWithin = 0;
        }
        int n = Math.min(untargeted, r.segmentLength(scatterIndex) - scatterWithin);
        target = views.of((SoftRegion) r.region(scatterIndex), r.offset(scatterIndex) + scatterWithin, n);
        scatterWithin += n;
        untargeted -= n;
        return target;
    }

    /** The current segment is done: its payload goes nowhere more. */
    void segmentDone() {
        target = null;
        scatter = null;
        untargeted = 0;
    }

    /** Places an RDMA Write segment; false if it terminated the connection. */
    boolean placeWrite(int stag, long taggedOffset, int length) {
        if (length == 0) {
            target = null; // a zero-length write touches nothing and needs no valid STag
            return true;
        }
        Terminate refusal = resolve(stag, Access.REMOTE_WRITE, taggedOffset, length);
        if (refusal != null) {
            return queuePair.terminate(refusal, countsAgainstPeer(refusal, stag),
                    String.format("RDMA Write to STag %08x [%d, +%d]", stag, taggedOffset, length));
        }
        target = views.of(resolvedRegion, resolvedOffset, length);
        return true;
    }

    /**
     * Places a segment of {@code read}'s Read Response, {@code placed} of whose bytes arrived before; false if it
     * terminated the connection. The response must name the sink the Read Request named, the first segment (STag 0
     * at 0 for a read without segments), at the offset where the bytes placed so far end.
     */
    boolean placeReadResponse(WorkRequest read, int placed, int stag, long taggedOffset, int length) {
        boolean empty = read.segmentCount() == 0;
        int sinkStag = empty ? 0 : read.region(0).token();
        long expectedOffset = (empty ? 0L : read.offset(0)) + placed;
        if (stag != sinkStag) {
            return queuePair.terminate(Terminate.INVALID_STAG, String.format(
                    "Read Response to STag %08x; the read's sink is %08x", stag, sinkStag));
        }
        if (taggedOffset != expectedOffset || length > read.length() - placed) {
            return queuePair.terminate(Terminate.BASE_OR_BOUNDS, "Read Response of " + length + " bytes at "
                    + taggedOffset + "; the read of " + read.length() + " bytes continues at " + expectedOffset);
        }
        scatterInto(read, placed, length);
        return true;
    }

    /** Posts a receive buffer for a Send (a connection without a shared receive queue). */
    void post(WorkRequest receive) {
        receives.add(receive);
    }

    /**
     * Makes sure the current Send message has its receive: kept from its first segment, else the oldest posted one
     * is taken now. False when none is posted; a shared queue then wakes this connection when one is.
     */
    boolean takeReceive() {
        if (receive == null) {
            if (shared == null) {
                receive = receives.poll();
            } else {
                receive = shared.take(queuePair);
                if (receive != null) {
                    receive.completion().arrivedOn(connectionEvents); // taken: the core counts it posted no more
                }
            }
        }
        return receive != null;
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
     * Places a Send segment of {@code length} bytes at {@code messageOffset} into the receive {@link #takeReceive}
     * secured; a message that does not fit fails the receive and terminates the connection (false).
     */
    boolean placeSend(int messageOffset, int length) {
        WorkRequest rx = receive;
        if (messageOffset < 0 || (long) messageOffset + length > rx.length()) {
            receive = null;
            rx.completion().failed(new RdmaException(Status.BUFFER_OVERFLOW, "a Send of at least "
                    + ((long) messageOffset + length) + " bytes does not fit the posted receive of " + rx.length()));
            return queuePair.terminate(Terminate.MESSAGE_TOO_LONG, "Send of at least "
                    + ((long) messageOffset + length) + " bytes into a receive of " + rx.length());
        }
        scatterInto(rx, messageOffset, length);
        return true;
    }

    /**
     * A Send's last segment is placed: its receive completes with the message's {@code bytes}, after invalidating
     * {@code invalidateStag} for the Send-with-Invalidate forms ({@code opcode}).
     */
    void sendDone(int opcode, int bytes, int invalidateStag) {
        WorkRequest rx = receive;
        receive = null;
        expectedSendMsn++;
        if (!Rdmap.invalidates(opcode)) {
            rx.completion().completed(bytes);
            return;
        }
        if (!invalidate(invalidateStag)) {
            rx.completion().failed(new RdmaException(Status.ACCESS_VIOLATION, String.format(
                    "peer asked to invalidate STag %08x, which is not valid here", invalidateStag)));
            queuePair.terminate(Terminate.CANNOT_INVALIDATE, !retired(invalidateStag),
                    "Send with Invalidate of an unknown STag");
            return;
        }
        rx.completion().completedWithInvalidate(bytes, invalidateStag);
    }

    /**
     * Revokes {@code stag} for the peer's Send with Invalidate: a valid region's, or the live STag of a window bound
     * on this connection (a window bound on another is not the peer's to revoke); false, changing nothing, otherwise.
     */
    private boolean invalidate(int stag) {
        SoftStag entry = lookup(stag);
        if (entry instanceof SoftRegion region && region.token() == stag && region.isValid()) {
            region.invalidate();
            return true;
        }
        return entry instanceof SoftWindow window && window.invalidateRemotely(stag, scope);
    }

    /**
     * Whether refusing {@code stag} with {@code refusal} counts against the peer's address: not when the STag was
     * valid here and this side retired it, which a correct peer's operation racing the revocation also meets.
     */
    boolean countsAgainstPeer(Terminate refusal, int stag) {
        return !refusal.equals(Terminate.INVALID_STAG) || !retired(stag);
    }

    /** Whether {@code stag} was valid here and is not any more, as far as the device remembers. */
    private boolean retired(int stag) {
        if (regions.retiredRecently(stag)) {
            return true;
        }
        // A window's binding ends without a word when its region is invalidated: its STag is still the binding's.
        SoftWindow.Binding b = lookup(stag) instanceof SoftWindow window ? window.binding() : null;
        return b != null && b.stag() == stag && !b.live();
    }

    /**
     * Checks an inbound tagged access of {@code length} bytes at {@code taggedOffset} of {@code stag} that needs
     * {@code right}: null when it is granted, {@link #resolvedRegion()} and {@link #resolvedOffset()} then naming
     * the first byte; else the Terminate to send. Tagged offsets are zero-based: in a region, or in a window's bound
     * span. A window grants access only through the connection it was bound on, and only with the STag of its
     * current binding while its region is valid.
     */
    Terminate resolve(int stag, Access right, long taggedOffset, int length) {
        SoftStag entry = lookup(stag);
        SoftRegion region;
        int base;
        int span;
        if (entry instanceof SoftWindow window) {
            SoftWindow.Binding b = window.binding();
            if (b == null || b.stag() != stag || !b.live()) {
                return Terminate.INVALID_STAG;
            }
            if (b.scope() != scope) {
                return Terminate.STAG_NOT_ASSOCIATED;
            }
            if (!b.allows(right)) {
                return Terminate.ACCESS_RIGHTS;
            }
            region = b.region();
            base = b.offset();
            span = b.length();
        } else if (entry instanceof SoftRegion r && r.token() == stag && r.isValid()) {
            if (!r.allows(right)) {
                return Terminate.ACCESS_RIGHTS;
            }
            region = r;
            base = 0;
            span = r.length();
        } else {
            return Terminate.INVALID_STAG;
        }
        if (taggedOffset < 0 || taggedOffset > span - length) { // no offset + length: a peer can overflow it
            return Terminate.BASE_OR_BOUNDS;
        }
        resolvedRegion = region;
        resolvedOffset = base + (int) taggedOffset;
        return null;
    }

    /** The region the last successful {@link #resolve} names. */
    SoftRegion resolvedRegion() {
        return resolvedRegion;
    }

    /** The byte of {@link #resolvedRegion()} the last successful {@link #resolve} names. */
    int resolvedOffset() {
        return resolvedOffset;
    }

    /** The entry owning {@code stag}'s index, or null; repeated lookups of one index skip the device's table. */
    private SoftStag lookup(int stag) {
        SoftStag entry = lastLookup;
        if (entry == null || entry.index() != SoftStag.indexOf(stag) || entry.released()) {
            entry = regions.lookup(stag);
            lastLookup = entry;
        }
        return entry;
    }

    /** Targets {@code length} bytes of {@code r}'s segments from byte {@code at} of them (checked to fit). */
    private void scatterInto(WorkRequest r, int at, int length) {
        target = null;
        untargeted = length;
        if (length == 0) {
            scatter = null;
            return;
        }
        int i = 0;
        while (at >= r.segmentLength(i)) { // at < r.length(): some segment holds it
            at -= r.segmentLength(i);
            i++;
        }
        scatter = r;
        scatterIndex = i;
        scatterWithin = at;
    }

    /**
     * Ends placement: a receive taken by a Send that could not finish fails with {@code midMessage} (what ended the
     * connection), the receives posted to this connection with {@code canceled}. A shared queue keeps its posted
     * receives (they belong to it) and stops waking this connection.
     */
    void flush(RdmaException midMessage, RdmaException canceled) {
        WorkRequest rx = receive;
        receive = null;
        segmentDone();
        if (rx != null) {
            rx.completion().failed(midMessage != null ? midMessage : canceled);
        }
        for (WorkRequest r : receives) {
            r.completion().failed(canceled);
        }
        receives.clear();
        if (shared != null) {
            shared.forget(queuePair);
        }
    }
}
