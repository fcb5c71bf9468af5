package dev.rdmafutures.soft;

import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.WorkRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The data path of one established soft connection, an iWARP queue pair over the MPA stream, put together from its
 * roles: the {@link SendScheduler} (send queue, outbound reads, completions), the {@link FpduDecoder} (the inbound
 * stream), {@link Placement} (inbound payload and the receive queue) and the {@link ReadResponder} (the peer's
 * reads). Any violation the roles find sends a Terminate and ends the connection; a Terminate from the peer fails
 * the oldest unfinished request with what it says. Its queues need no sizing: the core never has more requests
 * outstanding than the connection's queue depths, so each holds at most that many. Its receives come from its own
 * queue or from a {@link SoftSharedReceiveQueue}. Memory windows bound through it are reachable through it only,
 * and grant nothing once it ended. Confined to the poller thread, but {@link #sharedReceivePosted}.
 */
final class SoftQueuePair {

    private final SoftConnection connection;
    private final MpaTransport transport;
    private final FpduFraming framing;
    private final Placement placement;
    private final SendScheduler scheduler;
    private final ReadResponder responder;
    private final FpduDecoder decoder;
    /** This connection as the memory windows bound on it know it; ended with the data path. */
    private final SoftWindow.Scope windowScope = new SoftWindow.Scope();
    /** Resumes a Send held for a receive once its shared receive queue has one: run on our poller. */
    private final Runnable resumeHeldSend = this::resumeHeldSend;
    private boolean ended;
    private final LivenessWatch liveness;

    SoftQueuePair(SoftConnection connection, RegionTable regions, FpduFraming framing, ReadLimits limits,
                  Duration receiveWait, Duration livenessTimeout, SoftSharedReceiveQueue sharedReceives,
                  ConnectionEvents events) {
        this.connection = connection;
        this.transport = connection.transport();
        this.framing = framing;
        FpduWriter writer = new FpduWriter(transport.outbound(), framing);
        this.placement = new Placement(this, regions, windowScope, sharedReceives, events);
        this.scheduler = new SendScheduler(this, transport, writer, limits.outbound(), windowScope);
        this.responder = new ReadResponder(this, placement, writer, limits.inbound());
        this.decoder = new FpduDecoder(this, connection, framing, placement, responder, scheduler, receiveWait);
        this.liveness = new LivenessWatch(connection.poller(), livenessTimeout,
                () -> scheduler.awaitsPeer() || transport.awaitsWritable(), this::onSilentPeer);
    }

    /**
     * The peer owed us a Read Response or room in the socket and showed no life for the liveness deadline: the
     * oldest unfinished request fails with IO_TIMEOUT, the rest CANCELED, and the connection ends CONNECTION_RESET.
     */
    private void onSilentPeer() {
        if (ended) {
            return;
        }
        connection.logPeerFault("connection " + connection.localAddress() + " -> " + connection.remoteAddress()
                + ": the peer showed no life for the liveness deadline; ending it");
        RdmaException silent = new RdmaException(Status.IO_TIMEOUT, "the peer " + connection.remoteAddress()
                + " showed no life for the liveness deadline while this request waited for it");
        flush(silent, silent);
        connection.onSilentPeer();
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
            liveness.arm();
            return;
        }
        placement.post(request);
        resumeHeldSend();
    }

    /**
     * A receive was posted to the shared receive queue this queue pair takes from while a Send of ours waited for
     * one: the Send is resumed on our poller (if another connection took the receive first, it waits on). Any thread.
     */
    void sharedReceivePosted() {
        connection.poller().execute(resumeHeldSend);
    }

    private void resumeHeldSend() {
        if (!ended && decoder.resume()) {
            onReadable();
        }
    }

    /**
     * Parses and places whatever the socket has; what that queued (read responses, reads released by a response)
     * leaves at the duty cycle's flush, in one burst with the cycle's other bytes. Returns whether bytes arrived.
     */
    boolean onReadable() {
        boolean arrived;
        try {
            arrived = decoder.decode();
        } catch (IOException e) {
            connection.onTransportError(e);
            return true;
        }
        if (transport.awaitsWritable()) {
            transport.flushLater();
        }
        if (arrived) {
            liveness.progressed();
        }
        return arrived;
    }

    /** The socket's send buffer is full: the peer owes us room for the rest. */
    void onSocketFull() {
        liveness.arm();
    }

    /** The transport took everything up to {@code flushed}: finish writes, sends, and inbound read responses. */
    void onFlushed(long flushed) {
        liveness.progressed();
        responder.onFlushed(flushed);
        scheduler.onFlushed(flushed);
    }

    /**
     * A role detected a violation: send a Terminate, flush our requests with CANCELED, end the connection. It counts
     * against the peer's address, except a Send that found no receive (this side may be too slow).
     */
    boolean terminate(Terminate reason, String detail) {
        return terminate(reason, !reason.equals(Terminate.NO_BUFFER), detail);
    }

    /**
     * As {@link #terminate(Terminate, String)}, counted against the peer's address ({@code PeerFaultPolicy}) only if
     * {@code countsAgainstPeer}; a token this side retired moments ago is no sign of a hostile peer.
     */
    boolean terminate(Terminate reason, boolean countsAgainstPeer, String detail) {
        if (ended) {
            return false;
        }
        connection.logPeerFault("terminating connection " + connection.localAddress() + " -> "
                + connection.remoteAddress() + ": " + reason + " (" + detail + ")"
                + (countsAgainstPeer ? "" : "; a token retired here, not counted against the peer"));
        if (countsAgainstPeer) {
            connection.loop().poller().peerFault(connection.remoteAddress());
        }
        flush(null, new RdmaException(reason.status(), "the connection was terminated (" + reason + ": " + detail
                + ") before the Send filling this receive was complete"));
        connection.terminate(framing.frame(reason.message()));
        return false;
    }

    /** The peer terminated: the oldest unfinished request fails with what the Terminate says, the rest CANCELED. */
    void onTerminateReceived(Terminate received) {
        connection.logPeerFault("peer " + connection.remoteAddress() + " terminated the connection: " + received);
        RdmaException culprit = new RdmaException(received.status(), "the peer terminated the connection: "
                + received);
        flush(culprit, culprit);
        connection.onPeerTerminated();
    }

    /** Ends the data path: finished requests complete in order, everything else fails with CANCELED. Idempotent. */
    void flushAll() {
        flush(null, null);
    }

    /**
     * Ends the data path: finished requests complete in order, the first unfinished send-queue request fails with
     * {@code culprit} (if any), a receive that a Send took and could not finish with {@code midMessage} (if any),
     * everything else with CANCELED; a shared receive queue keeps its receives; the windows bound on this connection
     * grant nothing more. Idempotent.
     */
    private void flush(RdmaException culprit, RdmaException midMessage) {
        ended = true;
        liveness.stop();
        windowScope.end();
        decoder.stop();
        RdmaException canceled = new RdmaException(Status.CANCELED, "the connection ended");
        scheduler.flush(culprit, canceled);
        placement.flush(midMessage, canceled);
    }
}
