package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.providerkit.ReadLimitNegotiation;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A connection's MPA exchange (RFC 5044 section 7, RFC 6581), from the TCP connect or accept until the connection
 * is established or fails: what the bytes read meanwhile mean, and what a lost socket means at each {@link Step}.
 * Its connection hands it socket events while the lifecycle is {@link ConnectionLifecycle.Phase#ESTABLISHING} or
 * {@link ConnectionLifecycle.Phase#PENDING}. Poller thread only.
 */
abstract sealed class MpaHandshake permits ActiveHandshake, PassiveHandshake {
    /** Where the MPA exchange is, inside {@link ConnectionLifecycle.Phase#ESTABLISHING}. */
    enum Step {
        /** Initiator: the TCP connect runs. */
        CONNECTING,
        /** Initiator: our MPA Request is out. */
        AWAITING_REPLY,
        /** Responder: the socket is accepted, the initiator's MPA Request has not arrived. */
        AWAITING_REQUEST,
        /** Responder: the request waits for the application to accept or reject it. */
        AWAITING_ANSWER,
        /** Responder: our Reply agreed to peer-to-peer mode; the initiator's ready-to-receive message confirms. */
        AWAITING_RTR
    }

    final SoftConnection connection;
    final MpaTransport transport;
    final ConnectionLifecycle lifecycle;
    final SoftDevice device;
    Step step;

    MpaHandshake(SoftConnection connection, Step first) {
        this.connection = connection;
        this.transport = connection.transport();
        this.lifecycle = connection.lifecycle();
        this.device = connection.loop().device();
        this.step = first;
    }

    /**
     * Handles the next message in {@code inbound} (read mode), consuming it; returns false, consuming nothing, when
     * more bytes are needed or they are held for later.
     */
    abstract boolean consume(ByteBuffer inbound) throws MpaProtocolException;

    /** The peer closed the socket before the connection was established. */
    abstract void onEndOfStream();

    /** Reading or writing the socket failed before the connection was established. */
    abstract void onTransportError(IOException e);

    /** Establishment ends with {@code error}: a protocol violation, or the loop is closing. */
    abstract void giveUp(RdmaException error);

    /** The peer left after the exchange had been agreed. */
    RdmaException abandoned() {
        return new RdmaException(Status.CONNECTION_ABORTED,
                "peer " + connection.remoteAddress() + " abandoned the connection establishment");
    }

    /** The peer reset the socket after the exchange had been agreed. */
    RdmaException resetDuringEstablishment(IOException e) {
        return new RdmaException(Status.CONNECTION_ABORTED,
                "peer " + connection.remoteAddress() + " reset the connection during establishment", e);
    }

    /**
     * The effective limits against {@code peer}'s message: its IRD/ORD when enhanced; a revision-1 peer sends none,
     * so it is taken to match our offer.
     */
    ReadLimits negotiate(ReadLimits requested, MpaMessage peer) {
        ReadLimits offer = ReadLimitNegotiation.offer(requested, device.adapterInfo());
        ReadLimits peerLimits = peer.enhanced() ? new ReadLimits(peer.ird(), peer.ord())
                : new ReadLimits(offer.outbound(), offer.inbound());
        return ReadLimitNegotiation.effective(requested, device.adapterInfo(), peerLimits);
    }
}
