package dev.rdmafutures.soft;

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
import java.util.zip.CRC32C;

/**
 * The inbound half of an established stream: a streaming parser of FPDUs and their DDP/RDMAP headers that
 * validates each segment's header (framing, versions, opcode, control fields) before a byte of payload moves, then
 * lets {@link Placement} target the payload and reads it there, piece by piece when it is scattered over several
 * segments: bytes that arrived with the header are copied from an 8 KiB staging buffer, the rest is read from the
 * socket directly into the region. The staging buffer is the poller's ({@link DirectBuffers}), held only while part
 * of an FPDU waits in it or a segment is being parsed, so an idle connection holds none. The CRC is checked before a Read Request is answered or a message completes. A
 * Send that finds no posted receive (on the connection, or in its shared receive queue) is held, with the socket
 * unread, until a receive is posted or the handshake timeout passes; then the connection is terminated (NO_BUFFER),
 * so no message is dropped silently. Poller thread only.
 */
final class FpduDecoder {
    private static final int MAX_CONTROL = 128;
    /** Payload pieces smaller than this, with more payload behind them, are filled through staging. */
    private static final int SMALL_PIECE = 1024;
    /**
     * Bytes one {@link #decode} takes from its socket before it yields to the poller's other connections, so that
     * a connection whose peer never stops sending cannot starve them. It yields only between segments with nothing
     * staged: the unread bytes stay in the socket, which the next poll finds readable again.
     */
    static final int READ_BUDGET = 256 * 1024;

    private enum Phase { HEADER, PAYLOAD, TRAILER, HELD, DEAD }

    private final SoftQueuePair queuePair;
    private final SoftConnection connection;
    private final MpaTransport transport;
    private final SocketChannel channel;
    private final FpduFraming framing;
    private final Placement placement;
    private final ReadResponder responder;
    private final SendScheduler scheduler;
    private final Duration receiveWait;
    private final CRC32C crc = new CRC32C();
    /** The two buffers of a scattering read, set for its duration only. */
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    private final DirectBuffers buffers;
    /** In read mode; null while no bytes wait in it between FPDUs. */
    private ByteBuffer staging;
    /** Inside {@link #decode()}: a stop from within it leaves the staging buffer to its end. */
    private boolean decoding;
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
    private int segmentPayload;
    /** Where the current segment's RDMAP control fields start in staging. */
    private int controlIndex;
    private int stag;
    private long taggedOffset;
    private int queue;
    private int msn;
    private int messageOffset;
    private int invalidateStag;

    FpduDecoder(SoftQueuePair queuePair, SoftConnection connection, FpduFraming framing, Placement placement,
                ReadResponder responder, SendScheduler scheduler, Duration receiveWait) {
        this.queuePair = queuePair;
        this.connection = connection;
        this.transport = connection.transport();
        this.channel = transport.channel();
        this.buffers = connection.loop().directBuffers();
        this.framing = framing;
        this.placement = placement;
        this.responder = responder;
        this.scheduler = scheduler;
        this.receiveWait = receiveWait;
    }

    /** Takes bytes that arrived before the queue pair existed (right behind the MPA exchange). */
    void adopt(ByteBuffer early) {
        if (staging == null) {
            staging = buffers.staging();
        }
        staging.compact();
        staging.put(early);
        staging.flip();
    }

    /**
     * Parses and places what the socket has, until it has no more, a Send waits, or {@link #READ_BUDGET} is spent;
     * returns whether bytes came.
     */
    boolean decode() throws IOException {
        socketDrained = false;
        long before = bytesIn;
        if (staging == null) {
            staging = buffers.staging();
        }
        decoding = true;
        try {
            while (phase != Phase.DEAD && phase != Phase.HELD && !budgetSpent(before) && step()) {
                // each step consumes a header, payload bytes, or a trailer
            }
        } finally {
            decoding = false;
            releaseStagingIfIdle();
        }
        return bytesIn != before;
    }

    private boolean budgetSpent(long before) {
        return bytesIn - before >= READ_BUDGET && phase == Phase.HEADER && !staging.hasRemaining();
    }

    /** Between FPDUs with nothing read ahead, or once dead, the staging buffer goes back to the poller. */
    private void releaseStagingIfIdle() {
        if (staging != null && (phase == Phase.DEAD || phase == Phase.HEADER && !staging.hasRemaining())) {
            buffers.release(staging);
            staging = null;
        }
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
     * connection and returns -1.
     */
    private int readSocket(ByteBuffer into) throws IOException {
        int room = into.remaining();
        int read = channel.read(into);
        socketDrained = read < room;
        bytesIn += Math.max(0, read);
        if (read < 0) {
            phase = Phase.DEAD;
            connection.onEndOfStream();
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
            return queuePair.terminate(Terminate.DDP_VERSION, "DDP/RDMAP version not 1/1");
        }
        boolean tagged = DdpHeader.isTagged(c0);
        opcode = DdpHeader.opcode(c1);
        last = DdpHeader.isLast(c0);
        int ddpHeader = tagged ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH;
        int control = 0;
        if (!tagged && opcode == Rdmap.READ_REQUEST) {
            control = Rdmap.READ_REQUEST_LENGTH;
            if (ulpduLength != ddpHeader + control) {
                return queuePair.terminate(Terminate.MPA_FRAMING, "Read Request of " + ulpduLength + " bytes");
            }
        } else if (!tagged && opcode == Rdmap.TERMINATE) {
            control = ulpduLength - ddpHeader;
            if (control < Terminate.LENGTH || control > MAX_CONTROL) {
                return queuePair.terminate(Terminate.MPA_FRAMING, "Terminate of " + ulpduLength + " bytes");
            }
        } else if (ulpduLength < ddpHeader) {
            return queuePair.terminate(Terminate.MPA_FRAMING, "ULPDU of " + ulpduLength
                    + " bytes is shorter than its header");
        }
        int need = FpduFraming.LENGTH_FIELD + ddpHeader + control;
        if (!ensure(need)) {
            return false;
        }
        p = staging.position();
        if (framing.crcEnabled()) {
            crc.reset();
            FpduFraming.update(crc, staging, p, need);
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
            if (!placement.placeWrite(stag, taggedOffset, payloadRemaining)) {
                return false;
            }
        } else if (opcode == Rdmap.READ_RESPONSE) {
            WorkRequest read = scheduler.oldestRead();
            if (read == null) {
                return queuePair.terminate(Terminate.UNEXPECTED_OPCODE, "Read Response without an outstanding Read");
            }
            if (!placement.placeReadResponse(read, scheduler.oldestReadPlaced(), stag, taggedOffset,
                    payloadRemaining)) {
                return false;
            }
        } else {
            return queuePair.terminate(Terminate.UNEXPECTED_OPCODE, "tagged segment with opcode " + opcode);
        }
        phase = Phase.PAYLOAD;
        return true;
    }

    private boolean beginUntagged(int controlLength) {
        if (opcode == Rdmap.READ_REQUEST) {
            if (!responder.accept(staging, controlIndex, queue, msn)) {
                return false;
            }
            phase = Phase.TRAILER; // no payload: the response goes out once the request's CRC checks out
            return true;
        }
        if (opcode == Rdmap.TERMINATE) {
            queuePair.onTerminateReceived(Terminate.decode(staging.slice(controlIndex, controlLength)));
            return false;
        }
        if (!Rdmap.isSend(opcode)) {
            return queuePair.terminate(Terminate.UNEXPECTED_OPCODE, "untagged segment with opcode " + opcode);
        }
        if (!placement.acceptSend(queue, msn)) {
            return false;
        }
        if (!placement.takeReceive()) {
            holdForReceive();
            return false;
        }
        return placeSend();
    }

    private boolean placeSend() {
        if (!placement.placeSend(messageOffset, payloadRemaining)) {
            return false;
        }
        phase = Phase.PAYLOAD;
        return true;
    }

    private void holdForReceive() {
        phase = Phase.HELD;
        transport.setReadInterest(false);
        receiveDeadline = connection.poller().schedule(receiveWait, () -> {
            if (phase == Phase.HELD) {
                queuePair.terminate(Terminate.NO_BUFFER, "a Send waited " + receiveWait + " for a posted receive");
            }
        });
    }

    /**
     * A receive may be there for the Send that waits: if one is, places the Send and returns true, so the caller
     * reads on; false if no Send waits, none is posted yet (the Send keeps waiting), or placing ended the connection.
     */
    boolean resume() {
        if (phase != Phase.HELD || !placement.takeReceive()) {
            return false;
        }
        receiveDeadline.cancel();
        transport.setReadInterest(true);
        return placeSend();
    }

    /**
     * Moves payload into its targets: bytes already in staging are copied, the rest is read from the socket straight
     * into the region, except into a small piece with more to follow (a payload scattered over small segments),
     * which staging collects so that each piece costs no read of its own.
     */
    private boolean readPayload() throws IOException {
        if (payloadRemaining == 0) {
            phase = Phase.TRAILER;
            return true;
        }
        ByteBuffer target = placement.target();
        int room = target.remaining();
        int inStaging = Math.min(staging.remaining(), room);
        if (inStaging > 0) {
            int from = staging.position();
            if (framing.crcEnabled()) {
                FpduFraming.update(crc, staging, from, inStaging);
            }
            target.put(target.position(), staging, from, inStaging);
            target.position(target.position() + inStaging);
            staging.position(from + inStaging);
            payloadRemaining -= inStaging;
            return true;
        }
        if (socketDrained) {
            return false;
        }
        if (room < SMALL_PIECE && payloadRemaining > room) {
            return ensure(1);
        }
        int before = target.position();
        int read = payloadRemaining <= room ? readPayloadEnd(target) : readSocket(target);
        if (read <= 0) {
            return false;
        }
        if (framing.crcEnabled()) {
            FpduFraming.update(crc, target, before, read);
        }
        payloadRemaining -= read;
        return true;
    }

    /**
     * Reads the rest of this segment's payload into {@code target} and what follows it (trailer, the next FPDUs) into
     * staging, with one scattering read: the payload still lands in place, and the next header costs no read of its
     * own. Staging is empty here (what it held went to the target first). Returns the bytes that went to the target.
     */
    private int readPayloadEnd(ByteBuffer target) throws IOException {
        int limit = target.limit();
        target.limit(target.position() + payloadRemaining);
        staging.clear();
        scatter[0] = target;
        scatter[1] = staging;
        long room = (long) payloadRemaining + staging.capacity();
        long read;
        try {
            read = channel.read(scatter);
        } finally {
            scatter[0] = null;
            scatter[1] = null;
            target.limit(limit);
            staging.flip();
        }
        socketDrained = read < room;
        bytesIn += Math.max(0, read);
        if (read < 0) {
            phase = Phase.DEAD;
            connection.onEndOfStream();
            return -1;
        }
        return (int) Math.min(read, payloadRemaining);
    }

    private boolean readTrailer() throws IOException {
        int pad = FpduFraming.padFor(ulpduLength);
        if (!ensure(pad + FpduFraming.CRC_FIELD)) {
            return false;
        }
        int p = staging.position();
        if (framing.crcEnabled()) {
            FpduFraming.update(crc, staging, p, pad);
            if (staging.getInt(p + pad) != FpduFraming.wireValue(crc)) {
                return queuePair.terminate(Terminate.MPA_CRC, "FPDU CRC32c mismatch");
            }
        }
        staging.position(p + pad + FpduFraming.CRC_FIELD);
        phase = Phase.HEADER;
        segmentDone();
        return true;
    }

    private void segmentDone() {
        if (opcode == Rdmap.READ_REQUEST) { // tagged opcode 1 never gets here: beginTagged terminates it
            responder.answer();
        } else if (opcode == Rdmap.READ_RESPONSE) {
            scheduler.onReadResponse(segmentPayload, last);
        } else if (Rdmap.isSend(opcode) && last) {
            placement.sendDone(opcode, messageOffset + segmentPayload, invalidateStag);
        }
        placement.segmentDone();
    }

    /** Stops parsing for good (the connection ended); a held Send's deadline is cancelled. */
    void stop() {
        phase = Phase.DEAD;
        if (!decoding) {
            releaseStagingIfIdle();
        }
        if (receiveDeadline != null) {
            receiveDeadline.cancel();
        }
    }
}
