package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.rdmap.Rdmap;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.WorkRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data path of one established soft connection: an iWARP queue pair over the MPA stream. Confined to the
 * poller thread.
 *
 * <p>Send side: requests leave in post order; a read waits while the negotiated outbound limit (ORD) is used up
 * or, with READ_FENCE, until earlier reads are done; DEFER holds requests until one without it is posted. Writes
 * and sends complete once the transport took their last byte, reads when their response is placed; completions
 * are delivered in post order, and SILENT_SUCCESS ones only with the next signalled one.
 *
 * <p>Receive side: a streaming FPDU parser that validates each segment's header before a byte of payload moves,
 * then places the payload straight into the target region: bytes that arrived with the header are copied from an
 * 8 KiB staging buffer, the rest is read from the socket directly into the region. Any violation (unknown STag,
 * missing right, out of bounds, more reads than IRD, bad MSN, bad CRC) sends a Terminate and ends the connection;
 * nothing outside a region is ever touched. A Send that finds no posted receive is held, with the socket unread,
 * until a receive is posted or the handshake timeout passes; then the connection is terminated (both sides see
 * PROTOCOL_ERROR), so no message is dropped silently.
 */
final class SoftQueuePair {
    private static final Logger LOG = LoggerFactory.getLogger(SoftQueuePair.class);
    /** The most payload one FPDU carries, so that any ULPDU fits MPA's 16-bit length. */
    static final int MAX_SEGMENT_PAYLOAD = 65504;
    private static final int STAGING = 8 * 1024;
    private static final int MAX_CONTROL = 128;
    /** Payloads up to this size travel inside their FPDU's scratch buffer (see {@link #emit}). */
    static final int INLINE_PAYLOAD = 64;

    private enum Phase { HEADER, PAYLOAD, TRAILER, AWAIT_RECEIVE, DEAD }

    /** A send-queue request and what is known of its progress; pooled, as the request itself is. */
    private static final class Tracked {
        WorkRequest request;
        long flushMark;
        int received;
        boolean done;

        Tracked reset(WorkRequest r) {
            request = r;
            flushMark = -1;
            received = 0;
            done = false;
            return this;
        }
    }

    private final MpaEndpoint endpoint;
    private final OutboundQueue out;
    private final SocketChannel channel;
    private final RegionTable regions;
    private final FpduFraming framing;
    private final CRC32C crcIn = new CRC32C();
    private final int inboundLimit;
    private final int outboundLimit;
    private final Duration receiveWait;

    private final ArrayDeque<WorkRequest> pending = new ArrayDeque<>();
    private int releasable;
    private final ArrayDeque<Tracked> inFlight = new ArrayDeque<>();
    private final ArrayDeque<Tracked> readsOutstanding = new ArrayDeque<>();
    private final ArrayDeque<Tracked> idleTracked = new ArrayDeque<>();
    private final List<Tracked> silentDone = new ArrayList<>();
    private int nextSendMsn = 1;
    private int nextReadMsn = 1;

    private final ArrayDeque<WorkRequest> receives = new ArrayDeque<>();
    /** Where each Read Response we queued ends in the outbound stream: at most IRD of them, oldest first. */
    private final long[] responseEnds;
    private int responsesHead;
    private int responsesInFlight;
    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING).flip();
    private Phase phase = Phase.HEADER;
    private Cancellable receiveDeadline;
    /** A read this round returned less than it had room for: another read would return 0, so skip it. */
    private boolean socketDrained;
    /** Every byte read from the socket. */
    private long bytesIn;

    // The segment being parsed.
    private int ulpduLength;
    private int opcode;
    private boolean last;
    private int payloadRemaining;
    private ByteBuffer target;
    /** The region the last payload was placed into, and a view of it to reuse. */
    private SoftRegion targetRegion;
    private ByteBuffer targetView;
    /** The region the last inbound STag named: lookups of the same STag skip the device's table. */
    private SoftRegion lastLookup;
    /** Where the current segment's RDMAP control fields start in staging. */
    private int controlIndex;
    private int segmentPayload;
    private int stag;
    private long taggedOffset;
    private int queue;
    private int msn;
    private int messageOffset;
    private int invalidateStag;
    // A validated Read Request, answered once its CRC is checked.
    private int responseSinkStag;
    private long responseSinkOffset;
    private int responseSize;
    private SoftRegion responseSource;
    private long responseSourceOffset;

    SoftQueuePair(MpaEndpoint endpoint, SocketChannel channel, RegionTable regions, FpduFraming framing,
                  int inboundLimit, int outboundLimit, Duration receiveWait) {
        this.endpoint = endpoint;
        this.out = endpoint.outbound();
        this.channel = channel;
        this.regions = regions;
        this.framing = framing;
        this.inboundLimit = inboundLimit;
        this.outboundLimit = outboundLimit;
        this.receiveWait = receiveWait;
        this.responseEnds = new long[Math.max(1, inboundLimit)];
    }

    /** Takes bytes that arrived before the queue pair existed (right behind the MPA exchange). */
    void adopt(ByteBuffer early) {
        staging.compact();
        staging.put(early);
        staging.flip();
    }

    // ------------------------------------------------------------------------------------------------ send side

    void post(WorkRequest request) {
        if (phase == Phase.DEAD) {
            request.completion().failed(new RdmaException(Status.CONNECTION_INVALID, "the connection has ended"));
            return;
        }
        if (request.kind() == WorkRequest.Kind.RECEIVE) {
            receives.add(request);
            if (phase == Phase.AWAIT_RECEIVE) {
                resumeHeldSend();
            }
            return;
        }
        if (request.kind() == WorkRequest.Kind.READ && outboundLimit == 0) {
            request.completion().failed(new RdmaException(Status.INVALID_DEVICE_STATE,
                    "the peer allows no RDMA Reads on this connection (negotiated outbound read limit 0)"));
            return;
        }
        pending.add(request);
        if (!request.has(WorkRequest.DEFER)) {
            releasable = pending.size();
            pump();
            endpoint.flush();
        }
    }

    /** Transmits released requests until one has to wait (read limit, fence). */
    private void pump() {
        while (releasable > 0 && phase != Phase.DEAD) {
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
                    ByteBuffer head = header();
                    DdpHeader.putUntagged(head, Rdmap.READ_REQUEST, true, 0, Rdmap.QUEUE_READ_REQUEST,
                            nextReadMsn++, 0);
                    head.putInt(r.local().token()).putLong(r.localOffset()).putInt(r.length())
                            .putInt(r.remoteToken()).putLong(r.remoteAddress());
                    emit(head, null, 0, 0);
                    readsOutstanding.add(t);
                }
                case WRITE -> {
                    segments(r, true);
                    t.flushMark = out.enqueuedBytes();
                }
                default -> {
                    segments(r, false);
                    t.flushMark = out.enqueuedBytes();
                }
            }
        }
    }

    /** Cuts a write or send into FPDUs whose payloads are views of the registered memory. */
    private void segments(WorkRequest r, boolean tagged) {
        SoftRegion local = (SoftRegion) r.local();
        int msnOfMessage = tagged ? 0 : nextSendMsn++;
        int sendOpcode = r.kind() == WorkRequest.Kind.SEND_INVALIDATE ? Rdmap.SEND_INVALIDATE : Rdmap.SEND;
        int offset = 0;
        do {
            int n = Math.min(MAX_SEGMENT_PAYLOAD, r.length() - offset);
            boolean lastSegment = offset + n == r.length();
            ByteBuffer head = header();
            if (tagged) {
                DdpHeader.putTagged(head, Rdmap.RDMA_WRITE, lastSegment, r.remoteToken(), r.remoteAddress() + offset);
            } else {
                DdpHeader.putUntagged(head, sendOpcode, lastSegment,
                        sendOpcode == Rdmap.SEND_INVALIDATE ? r.remoteToken() : 0, Rdmap.QUEUE_SEND, msnOfMessage,
                        offset);
            }
            emit(head, local, r.localOffset() + offset, n);
            offset += n;
        } while (offset < r.length());
    }

    /** A scratch buffer for an FPDU header, positioned after the length field. */
    private ByteBuffer header() {
        return out.scratch().position(FpduFraming.LENGTH_FIELD);
    }

    /**
     * Queues one FPDU: header (length field at 0 filled in here), {@code length} payload bytes of {@code payload}
     * from {@code offset}, pad and CRC. A payload of up to {@value #INLINE_PAYLOAD} bytes is copied behind the header,
     * so the FPDU is one buffer (a latency-bound round trip then costs one plain write); a larger one is queued as a
     * view of the registered memory and gathered, never copied.
     */
    private void emit(ByteBuffer head, SoftRegion payload, int offset, int length) {
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

    /** The transport took everything up to {@code flushed}: finish writes, sends, and inbound read responses. */
    void onFlushed(long flushed) {
        while (responsesInFlight > 0 && responseEnds[responsesHead] <= flushed) {
            responsesHead = (responsesHead + 1) % responseEnds.length;
            responsesInFlight--;
        }
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
        r.completion().completed(r.length());
    }

    private void recycle(Tracked t) {
        t.request = null;
        idleTracked.push(t);
    }

    // --------------------------------------------------------------------------------------------- receive side

    /** Parses and places whatever the socket has; returns whether bytes arrived. */
    boolean onReadable() {
        socketDrained = false;
        long before = bytesIn;
        try {
            while (phase != Phase.DEAD && phase != Phase.AWAIT_RECEIVE && step()) {
                // each step consumes a header, payload bytes, or a trailer
            }
        } catch (IOException e) {
            endpoint.onTransportError(e);
            return true;
        }
        if (!out.isEmpty()) {
            endpoint.flush(); // read responses queued while parsing go out in one burst
        }
        return bytesIn != before;
    }

    private boolean step() throws IOException {
        switch (phase) {
            case HEADER -> {
                return readHeader();
            }
            case PAYLOAD -> {
                return readPayload();
            }
            case TRAILER -> {
                return readTrailer();
            }
            default -> {
                return false;
            }
        }
    }

    /** Makes {@code n} bytes available in staging; false if they have not arrived yet (or the stream ended). */
    private boolean ensure(int n) throws IOException {
        while (staging.remaining() < n) {
            if (socketDrained) {
                return false; // the selector reports the socket readable again when more arrives
            }
            staging.compact();
            int read = readSocket(staging);
            staging.flip();
            if (read <= 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads from the socket into {@code into}, noting whether the socket is drained; at end of stream it ends the
     * data path and returns -1.
     */
    private int readSocket(ByteBuffer into) throws IOException {
        int room = into.remaining();
        int read = channel.read(into);
        socketDrained = read < room;
        bytesIn += Math.max(0, read);
        if (read < 0) {
            phase = Phase.DEAD;
            endpoint.onEndOfStream();
        }
        return read;
    }

    private boolean readHeader() throws IOException {
        if (!ensure(4)) {
            return false;
        }
        int p = staging.position();
        ulpduLength = staging.getShort(p) & 0xFFFF;
        int c0 = staging.get(p + 2) & 0xFF;
        int c1 = staging.get(p + 3) & 0xFF;
        if (!DdpHeader.versionsSupported(c0, c1)) {
            return terminate(Terminate.DDP_VERSION, "DDP/RDMAP version not 1/1");
        }
        boolean tagged = DdpHeader.isTagged(c0);
        opcode = DdpHeader.opcode(c1);
        last = DdpHeader.isLast(c0);
        int ddpHeader = tagged ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH;
        int control = 0;
        if (!tagged && opcode == Rdmap.READ_REQUEST) {
            control = Rdmap.READ_REQUEST_LENGTH;
            if (ulpduLength != ddpHeader + control) {
                return terminate(Terminate.MPA_FRAMING, "Read Request of " + ulpduLength + " bytes");
            }
        } else if (!tagged && opcode == Rdmap.TERMINATE) {
            control = ulpduLength - ddpHeader;
            if (control < Terminate.LENGTH || control > MAX_CONTROL) {
                return terminate(Terminate.MPA_FRAMING, "Terminate of " + ulpduLength + " bytes");
            }
        } else if (ulpduLength < ddpHeader) {
            return terminate(Terminate.MPA_FRAMING, "ULPDU of " + ulpduLength + " bytes is shorter than its header");
        }
        int need = FpduFraming.LENGTH_FIELD + ddpHeader + control;
        if (!ensure(need)) {
            return false;
        }
        p = staging.position();
        if (framing.crcEnabled()) {
            crcIn.reset();
            FpduFraming.update(crcIn, staging, p, need);
        }
        int h = p + FpduFraming.LENGTH_FIELD + 2; // the DDP header after its two control bytes
        staging.position(p + need); // the fields stay in staging until the next read from the socket
        payloadRemaining = ulpduLength - ddpHeader - control;
        segmentPayload = payloadRemaining;
        if (tagged) {
            stag = staging.getInt(h);
            taggedOffset = staging.getLong(h + 4);
            return beginTagged();
        }
        invalidateStag = staging.getInt(h);
        queue = staging.getInt(h + 4);
        msn = staging.getInt(h + 8);
        messageOffset = staging.getInt(h + 12);
        controlIndex = h + 16;
        return beginUntagged(control);
    }

    private boolean beginTagged() {
        if (opcode == Rdmap.RDMA_WRITE) {
            if (payloadRemaining == 0) {
                target = null; // a zero-length write touches nothing and needs no valid STag
            } else {
                SoftRegion region = lookup(stag);
                Terminate refusal = check(region, Access.REMOTE_WRITE, taggedOffset, payloadRemaining);
                if (refusal != null) {
                    return terminate(refusal, String.format("RDMA Write to STag %08x [%d, +%d]", stag,
                            taggedOffset, payloadRemaining));
                }
                target = placeInto(region, (int) taggedOffset, payloadRemaining);
            }
        } else if (opcode == Rdmap.READ_RESPONSE) {
            Tracked read = readsOutstanding.peek();
            if (read == null) {
                return terminate(Terminate.UNEXPECTED_OPCODE, "Read Response without an outstanding Read");
            }
            WorkRequest r = read.request;
            if (stag != r.local().token()) {
                return terminate(Terminate.INVALID_STAG, "Read Response to the wrong sink STag");
            }
            long end = (long) r.localOffset() + r.length();
            if (taggedOffset < r.localOffset() || taggedOffset > end - payloadRemaining) {
                return terminate(Terminate.BASE_OR_BOUNDS, "Read Response outside the read's sink buffer");
            }
            target = payloadRemaining == 0 ? null
                    : placeInto((SoftRegion) r.local(), (int) taggedOffset, payloadRemaining);
        } else {
            return terminate(Terminate.UNEXPECTED_OPCODE, "tagged segment with opcode " + opcode);
        }
        phase = Phase.PAYLOAD;
        return true;
    }

    private boolean beginUntagged(int controlLength) {
        if (opcode == Rdmap.READ_REQUEST) {
            return answerReadRequest();
        }
        if (opcode == Rdmap.TERMINATE) {
            Terminate received = Terminate.decode(staging.slice(controlIndex, controlLength));
            onTerminateReceived(received);
            return false;
        }
        if (!Rdmap.isSend(opcode)) {
            return terminate(Terminate.UNEXPECTED_OPCODE, "untagged segment with opcode " + opcode);
        }
        if (queue != Rdmap.QUEUE_SEND) {
            return terminate(Terminate.INVALID_QUEUE, "Send on queue " + queue);
        }
        if (msn != expectedSendMsn) {
            return terminate(Terminate.INVALID_MSN, "Send MSN " + msn + ", expected " + expectedSendMsn);
        }
        if (receives.isEmpty()) {
            holdForReceive();
            return false;
        }
        return placeSend();
    }

    private boolean placeSend() {
        WorkRequest rx = receives.peek();
        if (messageOffset < 0 || (long) messageOffset + payloadRemaining > rx.length()) {
            receives.poll().completion().failed(new RdmaException(Status.BUFFER_OVERFLOW, "a Send of at least "
                    + (messageOffset + payloadRemaining) + " bytes does not fit the posted receive of " + rx.length()));
            return terminate(Terminate.MESSAGE_TOO_LONG, "Send of at least " + (messageOffset + payloadRemaining)
                    + " bytes into a receive of " + rx.length());
        }
        target = payloadRemaining == 0 ? null
                : placeInto((SoftRegion) rx.local(), rx.localOffset() + messageOffset, payloadRemaining);
        phase = Phase.PAYLOAD;
        return true;
    }

    private void holdForReceive() {
        phase = Phase.AWAIT_RECEIVE;
        endpoint.setReadInterest(false);
        receiveDeadline = endpoint.poller().schedule(receiveWait, () -> {
            if (phase == Phase.AWAIT_RECEIVE) {
                terminate(Terminate.NO_BUFFER, "a Send waited " + receiveWait + " for a posted receive");
            }
        });
    }

    private void resumeHeldSend() {
        receiveDeadline.cancel();
        endpoint.setReadInterest(true);
        if (placeSend()) {
            onReadable();
        }
    }

    private boolean answerReadRequest() {
        if (queue != Rdmap.QUEUE_READ_REQUEST) {
            return terminate(Terminate.INVALID_QUEUE, "Read Request on queue " + queue);
        }
        if (msn != expectedReadMsn) {
            return terminate(Terminate.INVALID_MSN, "Read Request MSN " + msn + ", expected " + expectedReadMsn);
        }
        if (responsesInFlight >= inboundLimit) {
            return terminate(Terminate.STREAM_CATASTROPHIC, "peer exceeded our inbound read limit of "
                    + inboundLimit);
        }
        int c = controlIndex;
        int sinkStag = staging.getInt(c);
        long sinkOffset = staging.getLong(c + 4);
        int size = staging.getInt(c + 12);
        int sourceStag = staging.getInt(c + 16);
        long sourceOffset = staging.getLong(c + 20);
        if (size < 0) {
            return terminate(Terminate.BASE_OR_BOUNDS, "Read Request of " + (size & 0xFFFFFFFFL) + " bytes");
        }
        SoftRegion source = lookup(sourceStag);
        if (size > 0) {
            Terminate refusal = check(source, Access.REMOTE_READ, sourceOffset, size);
            if (refusal != null) {
                return terminate(refusal, String.format("RDMA Read of STag %08x [%d, +%d]", sourceStag,
                        sourceOffset, size));
            }
        }
        responseSinkStag = sinkStag;
        responseSinkOffset = sinkOffset;
        responseSize = size;
        responseSource = source;
        responseSourceOffset = sourceOffset;
        phase = Phase.TRAILER; // no payload: the response goes out once the request's CRC checks out
        return true;
    }

    private void answerCheckedReadRequest() {
        expectedReadMsn++;
        int offset = 0;
        do {
            int n = Math.min(MAX_SEGMENT_PAYLOAD, responseSize - offset);
            boolean lastSegment = offset + n == responseSize;
            ByteBuffer head = header();
            DdpHeader.putTagged(head, Rdmap.READ_RESPONSE, lastSegment, responseSinkStag, responseSinkOffset + offset);
            emit(head, responseSource, (int) responseSourceOffset + offset, n);
            offset += n;
        } while (offset < responseSize);
        responseEnds[(responsesHead + responsesInFlight++) % responseEnds.length] = out.enqueuedBytes();
        responseSource = null;
    }

    /** The valid region with {@code token}, or null; repeated lookups of one STag skip the device's table. */
    private SoftRegion lookup(int token) {
        SoftRegion r = lastLookup;
        if (r == null || r.token() != token || !r.isValid()) {
            r = regions.lookup(token);
            lastLookup = r;
        }
        return r;
    }

    /** A view of {@code length} bytes of {@code region} from {@code offset} to place payload into. */
    private ByteBuffer placeInto(SoftRegion region, int offset, int length) {
        if (region != targetRegion) {
            targetRegion = region;
            targetView = region.bytes();
        }
        return targetView.clear().position(offset).limit(offset + length);
    }

    /** Null when {@code region} grants {@code right} over [offset, offset + length), else the Terminate to send. */
    private static Terminate check(SoftRegion region, Access right, long offset, int length) {
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

    private boolean readPayload() throws IOException {
        int inStaging = Math.min(staging.remaining(), payloadRemaining);
        if (inStaging > 0) {
            int from = staging.position();
            if (framing.crcEnabled()) {
                FpduFraming.update(crcIn, staging, from, inStaging);
            }
            if (target != null) {
                target.put(target.position(), staging, from, inStaging);
                target.position(target.position() + inStaging);
            }
            staging.position(from + inStaging);
            payloadRemaining -= inStaging;
        }
        if (payloadRemaining > 0) {
            if (socketDrained) {
                return false;
            }
            int before = target.position();
            int read = readSocket(target);
            if (read <= 0) {
                return false;
            }
            if (framing.crcEnabled()) {
                FpduFraming.update(crcIn, target, before, read);
            }
            payloadRemaining -= read;
            return true;
        }
        phase = Phase.TRAILER;
        return true;
    }

    private boolean readTrailer() throws IOException {
        int pad = FpduFraming.padFor(ulpduLength);
        if (!ensure(pad + FpduFraming.CRC_FIELD)) {
            return false;
        }
        int p = staging.position();
        if (framing.crcEnabled()) {
            FpduFraming.update(crcIn, staging, p, pad);
            if (staging.getInt(p + pad) != FpduFraming.wireValue(crcIn)) {
                return terminate(Terminate.MPA_CRC, "FPDU CRC32c mismatch");
            }
        }
        staging.position(p + pad + FpduFraming.CRC_FIELD);
        phase = Phase.HEADER;
        segmentDone();
        return true;
    }

    private void segmentDone() {
        if (opcode == Rdmap.READ_REQUEST) { // tagged opcode 1 never gets here: beginTagged terminates it
            answerCheckedReadRequest();
        } else if (opcode == Rdmap.READ_RESPONSE) {
            Tracked read = readsOutstanding.peek();
            read.received += segmentPayload;
            if (last) {
                readsOutstanding.poll();
                if (read.received != read.request.length()) {
                    terminate(Terminate.BASE_OR_BOUNDS, "Read Response of " + read.received + " bytes for a read of "
                            + read.request.length());
                    return;
                }
                read.done = true;
                if (read.request.has(WorkRequest.LOCAL_INVALIDATE)) {
                    read.request.local().invalidate();
                }
                onFlushed(out.flushedBytes());
                pump();
            }
        } else if (Rdmap.isSend(opcode) && last) {
            WorkRequest rx = receives.poll();
            expectedSendMsn++;
            int bytes = messageOffset + segmentPayload;
            if (Rdmap.invalidates(opcode)) {
                SoftRegion region = regions.lookup(invalidateStag);
                if (region == null) {
                    rx.completion().failed(new RdmaException(Status.ACCESS_VIOLATION, String.format(
                            "peer asked to invalidate STag %08x, which is not valid here", invalidateStag)));
                    terminate(Terminate.CANNOT_INVALIDATE, "Send with Invalidate of an unknown STag");
                    return;
                }
                region.invalidate();
                rx.completion().completedWithInvalidate(bytes, invalidateStag);
            } else {
                rx.completion().completed(bytes);
            }
        }
        target = null;
    }

    // ----------------------------------------------------------------------------------------------- ending

    /** We detected a violation: send a Terminate, flush our requests with CANCELED, end the connection. */
    private boolean terminate(Terminate reason, String detail) {
        if (phase == Phase.DEAD) {
            return false;
        }
        LOG.warn("terminating connection {} -> {}: {} ({})", endpoint.localAddress(), endpoint.remoteAddress(),
                reason, detail);
        phase = Phase.DEAD;
        ByteBuffer fpdu = framing.frame(reason.message());
        flushAll(null);
        endpoint.terminateConnection(fpdu);
        return false;
    }

    /** The peer terminated: the oldest unfinished request fails with what the Terminate says, the rest CANCELED. */
    private void onTerminateReceived(Terminate received) {
        LOG.warn("peer {} terminated the connection: {}", endpoint.remoteAddress(), received);
        phase = Phase.DEAD;
        flushAll(new RdmaException(received.status(), "the peer terminated the connection: " + received));
        endpoint.onPeerTerminated();
    }

    /**
     * Ends the data path: finished requests complete in order, the first unfinished one fails with
     * {@code culprit} (if any), everything else with CANCELED. Idempotent.
     */
    void flushAll(RdmaException culprit) {
        phase = Phase.DEAD;
        if (receiveDeadline != null) {
            receiveDeadline.cancel();
        }
        RdmaException canceled = new RdmaException(Status.CANCELED, "the connection ended");
        RdmaException first = culprit;
        long flushed = out.flushedBytes();
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
        for (WorkRequest r : receives) {
            r.completion().failed(canceled);
        }
        receives.clear();
    }
}
