package dev.rdmafutures.soft;

import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.WorkRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data path of one established soft connection, an iWARP queue pair over the MPA stream, put together from its
 * roles: the {@link SendScheduler} (send queue, outbound reads, completions), the {@link FpduDecoder} (the inbound
 * stream), {@link Placement} (inbound payload and the receive queue) and the {@link ReadResponder} (the peer's
 * reads). Any violation the roles find sends a Terminate and ends the connection; a Terminate from the peer fails
 * the oldest unfinished request with what it says. Its queues need no sizing: the core never has more requests
 * outstanding than the connection's queue depths, so each holds at most that many. Confined to the poller thread.
 */
final class SoftQueuePair {
    private static final Logger LOG = LoggerFactory.getLogger(SoftQueuePair.class);

    private final SoftConnection connection;
    private final MpaTransport transport;
    private final FpduFraming framing;
    private final Placement placement;
    private final SendScheduler scheduler;
    private final ReadResponder responder;
    private final FpduDecoder decoder;
    private boolean ended;

    SoftQueuePair(SoftConnection connection, RegionTable regions, FpduFraming framing, ReadLimits limits,
                  Duration receiveWait) {
        this.connection = connection;
        this.transport = connection.transport();
        this.framing = framing;
        FpduWriter writer = new FpduWriter(transport.outbound(), framing);
        this.placement = new Placement(this, regions);
        this.scheduler = new SendScheduler(this, transport, writer, limits.outbound());
        this.responder = new ReadResponder(this, placement, writer, limits.inbound());
        this.decoder = new FpduDecoder(this, connection, framing, placement, responder, scheduler, receiveWait);
    }

    /** Takes bytes that arrived before the queue pair existed (right behind the MPA exchange). */
    void adopt(ByteBuffer early) {
        decoder.adopt(early);
    }

    void post(WorkRequest request) {
        if (ended) {
            request.completion().failed(new RdmaException(Status.CONNECTION_INVALID, "the connection has ended"));
            return;
        }
        if (request.kind() != WorkRequest.Kind.RECEIVE) {
            scheduler.post(request);
            return;
        }
        placement.post(request);
        if (decoder.isHeld() && decoder.resume()) {
            onReadable();
        }
    }

    /** Parses and places whatever the socket has, then sends what that queued; returns whether bytes arrived. */
    boolean onReadable() {
        boolean arrived;
        try {
            arrived = decoder.decode();
        } catch (IOException e) {
            connection.onTransportError(e);
            return true;
        }
        if (transport.awaitsWritable()) {
            transport.flush(); // read responses queued while parsing go out in one burst
        }
        return arrived;
    }

    /** The transport took everything up to {@code flushed}: finish writes, sends, and inbound read responses. */
    void onFlushed(long flushed) {
        responder.onFlushed(flushed);
        scheduler.onFlushed(flushed);
    }

    /** A role detected a violation: send a Terminate, flush our requests with CANCELED, end the connection. */
    boolean terminate(Terminate reason, String detail) {
        if (ended) {
            return false;
        }
        LOG.warn("terminating connection {} -> {}: {} ({})", connection.localAddress(), connection.remoteAddress(),
                reason, detail);
        flushAll(null);
        connection.terminate(framing.frame(reason.message()));
        return false;
    }

    /** The peer terminated: the oldest unfinished request fails with what the Terminate says, the rest CANCELED. */
    void onTerminateReceived(Terminate received) {
        LOG.warn("peer {} terminated the connection: {}", connection.remoteAddress(), received);
        flushAll(new RdmaException(received.status(), "the peer terminated the connection: " + received));
        connection.onPeerTerminated();
    }

    /**
     * Ends the data path: finished requests complete in order, the first unfinished one fails with
     * {@code culprit} (if any), everything else with CANCELED. Idempotent.
     */
    void flushAll(RdmaException culprit) {
        ended = true;
        decoder.stop();
        RdmaException canceled = new RdmaException(Status.CANCELED, "the connection ended");
        scheduler.flush(culprit, canceled);
        placement.flush(canceled);
    }
}
