package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A queue pair's send queue: requests leave in post order; a read waits while the negotiated outbound limit (ORD)
 * is used up or, with READ_FENCE, until earlier reads are done; DEFER holds requests until one without it is
 * posted. Writes and sends gather their segments in order; a read names its first segment as the sink (siw does the
 * same) and its response is scattered over all of them; LOCAL_INVALIDATE invalidates the first segment's region.
 * A memory window's bind or invalidation, and a fast registration or its invalidation, put nothing on the wire: each
 * takes effect when its turn to leave comes (the requests before it have left) and is done then. Writes and sends complete once the transport took their last
 * byte, reads when their response is placed; completions are delivered in post order (binds and invalidations with
 * 0 bytes; a failed one, which changed nothing, fails in its place), SILENT_SUCCESS ones only with the next
 * signalled one. The tracking of each request is pooled, so a steady send queue allocates nothing. Poller thread
 * only.
 */
final class SendScheduler {
    /** A send-queue request and what is known of its progress; pooled, as the request itself is. */
    private static final class Tracked {
        WorkRequest request;
        long flushMark;
        int received;
        boolean done;
        /** Why a done window request failed; null on success. */
        RdmaException error;

        Tracked reset(WorkRequest r) {
            request = r;
            flushMark = -1;
            received = 0;
            done = false;
            error = null;
            return this;
        }
    }

    private final SoftQueuePair queuePair;
    private final MpaTransport transport;
    private final FpduWriter writer;
    private final int outboundLimit;
    /** The connection the windows this queue binds are reachable through. */
    private final SoftWindow.Scope windowScope;

    private final ArrayDeque<WorkRequest> pending = new ArrayDeque<>();
    /** How many of the oldest pending requests may leave: those up to the last one posted without DEFER. */
    private int releasable;
    private final ArrayDeque<Tracked> inFlight = new ArrayDeque<>();
    private final ArrayDeque<Tracked> readsOutstanding = new ArrayDeque<>();
    private final ArrayDeque<Tracked> idleTracked = new ArrayDeque<>();
    private final List<Tracked> silentDone = new ArrayList<>();
    private int nextSendMsn = 1;
    private int nextReadMsn = 1;

    SendScheduler(SoftQueuePair queuePair, MpaTransport transport, FpduWriter writer, int outboundLimit,
                  SoftWindow.Scope windowScope) {
        this.queuePair = queuePair;
        this.transport = transport;
        this.writer = writer;
        this.outboundLimit = outboundLimit;
        this.windowScope = windowScope;
    }

    /**
     * Queues a send-queue request; unless it is deferred, queues what may leave for the socket, which takes it at the
     * duty cycle's flush together with everything else the cycle produced.
     */
    void post(WorkRequest request) {
        if (request.kind() == WorkRequest.Kind.READ && outboundLimit == 0) {
            request.completion().failed(new RdmaException(Status.INVALID_DEVICE_STATE,
                    "the peer allows no RDMA Reads on this connection (negotiated outbound read limit 0)"));
            return;
        }
        pending.add(request);
        if (!request.has(WorkRequest.DEFER)) {
            releasable = pending.size();
            pump();
            transport.flushLater();
        }
    }

    /** Whether a posted request waits for the peer: a read for its response, anything for the socket or a read. */
    boolean awaitsPeer() {
        return !inFlight.isEmpty();
    }

    /** Transmits released requests until one has to wait (read limit, fence). */
    void pump() {
        while (releasable > 0) {
            WorkRequest r = pending.peek();
            boolean isRead = r.kind() == WorkRequest.Kind.READ;
            if ((r.has(WorkRequest.READ_FENCE) && !readsOutstanding.isEmpty())
                    || (isRead && readsOutstanding.size() >= outboundLimit)) {
                return;
            }
            pending.poll();
            releasable--;
            Tracked t = idleTracked.isEmpty() ? new Tracked() : idleTracked.poll();
            inFlight.add(t.reset(r));
            switch (r.kind()) {
                case READ -> {
                    // As siw does: the sink is the first segment; the response is scattered over all of them.
                    boolean empty = r.segmentCount() == 0;
                    ByteBuffer head = writer.header();
                    DdpHeader.putUntagged(head, Rdmap.READ_REQUEST, true, 0, Rdmap.QUEUE_READ_REQUEST,
                            nextReadMsn++, 0);
                    head.putInt(empty ? 0 : r.region(0).token()).putLong(empty ? 0 : r.offset(0)).putInt(r.length())
                            .putInt(r.remoteToken()).putLong(r.remoteAddress());
                    writer.control(head);
                    readsOutstanding.add(t);
                }
                case WRITE -> {
                    writer.tagged(Rdmap.RDMA_WRITE, r.remoteToken(), r.remoteAddress(), r);
                    t.flushMark = writer.enqueuedBytes();
                }
                case BIND_WINDOW, INVALIDATE_WINDOW, FAST_REGISTER -> {
                    t.error = r.window() instanceof SoftFastRegion ? SoftFastRegion.perform(r)
                            : SoftWindow.perform(r, windowScope);
                    if (t.error == null && r.kind() == WorkRequest.Kind.BIND_WINDOW) {
                        r.completion().windowBound(r.window().token()); // this bind's, before a later one's
                    }
                    t.done = true;
                }
                case SEND_INVALIDATE -> {
                    writer.send(Rdmap.SEND_INVALIDATE, r.remoteToken(), nextSendMsn++, r);
                    t.flushMark = writer.enqueuedBytes();
                }
                default -> {
                    writer.send(Rdmap.SEND, 0, nextSendMsn++, r);
                    t.flushMark = writer.enqueuedBytes();
                }
            }
        }
    }

    /** The oldest read still waiting for its response, or null. */
    WorkRequest oldestRead() {
        Tracked read = readsOutstanding.peek();
        return read == null ? null : read.request;
    }

    /** How many bytes of the oldest read's response were placed so far. */
    int oldestReadPlaced() {
        return readsOutstanding.peek().received;
    }

    /**
     * A segment of {@code bytes} of the oldest read's response was placed; with {@code last}, the read is done
     * (or, short of its length, the connection is terminated) and the reads waiting behind it may leave.
     */
    void onReadResponse(int bytes, boolean last) {
        Tracked read = readsOutstanding.peek();
        read.received += bytes;
        if (!last) {
            return;
        }
        readsOutstanding.poll();
        if (read.received != read.request.length()) {
            queuePair.terminate(Terminate.BASE_OR_BOUNDS, "Read Response of " + read.received
                    + " bytes for a read of " + read.request.length());
            return;
        }
        read.done = true;
        if (read.request.has(WorkRequest.LOCAL_INVALIDATE) && read.request.segmentCount() > 0) {
            read.request.region(0).invalidate();
        }
        pump(); // before delivering: a window request released now is done at once and may need no flush to go
        onFlushed(transport.outbound().flushedBytes());
    }

    /** The transport took everything up to {@code flushed}: writes and sends up to there are done. */
    void onFlushed(long flushed) {
        Tracked head;
        while ((head = inFlight.peek()) != null) {
            if (!head.done && head.flushMark >= 0 && head.flushMark <= flushed) {
                head.done = true;
            }
            if (!head.done) {
                return;
            }
            inFlight.poll();
            deliver(head);
        }
    }

    private void deliver(Tracked t) {
        if (t.error != null) {
            releaseSilent();
            WorkRequest r = t.request;
            RdmaException error = t.error;
            recycle(t);
            r.completion().failed(error);
            return;
        }
        if (t.request.has(WorkRequest.SILENT_SUCCESS)) {
            silentDone.add(t);
            return;
        }
        releaseSilent();
        complete(t);
    }

    private void releaseSilent() {
        for (int i = 0; i < silentDone.size(); i++) {
            complete(silentDone.get(i));
        }
        silentDone.clear();
    }

    /** Reports success; the request and its tracking are done with. */
    private void complete(Tracked t) {
        WorkRequest r = t.request;
        recycle(t);
        boolean local = switch (r.kind()) {
            case BIND_WINDOW, INVALIDATE_WINDOW, FAST_REGISTER -> true;
            default -> false;
        };
        r.completion().completed(local ? 0 : r.length());
    }

    private void recycle(Tracked t) {
        t.request = null;
        t.error = null;
        idleTracked.push(t);
    }

    /**
     * Ends the send queue: finished requests complete in order, the first unfinished one fails with
     * {@code culprit} (if any), everything else with {@code canceled}. Idempotent.
     */
    void flush(RdmaException culprit, RdmaException canceled) {
        releasable = 0;
        RdmaException first = culprit;
        long flushed = transport.outbound().flushedBytes();
        Tracked t;
        while ((t = inFlight.poll()) != null) {
            if (t.done || (t.flushMark >= 0 && t.flushMark <= flushed)) {
                deliver(t);
            } else {
                WorkRequest r = t.request;
                recycle(t);
                r.completion().failed(first != null ? first : canceled);
                first = null;
            }
        }
        releaseSilent();
        readsOutstanding.clear();
        for (WorkRequest r : pending) {
            r.completion().failed(first != null ? first : canceled);
            first = null;
        }
        pending.clear();
    }
}
