package dev.rdmafutures.soft;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.spi.EstablishEvents;
import dev.rdmafutures.spi.IncomingRequest;
import dev.rdmafutures.spi.ListenEvents;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.providerkit.ReadLimitNegotiation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The responder's establishment: the initiator's MPA Request, reported to the listener as an
 * {@link IncomingRequest}; the application's accept (a Reply, agreeing to peer-to-peer mode when the initiator
 * offers a zero-length RDMA Write as RTR) or reject; and in peer-to-peer mode the wait for that RTR, or for the
 * {@link Terminate#PENDING_EXPIRED} that says the initiator's deadline passed (IO_TIMEOUT). Each wait is bounded by
 * the handshake timeout. Poller thread only.
 */
final class PassiveHandshake extends MpaHandshake implements IncomingRequest {
    private static final Logger LOG = LoggerFactory.getLogger(PassiveHandshake.class);

    private final ListenEvents listenEvents;
    private MpaMessage request;
    private FpduFraming framing;
    private ConnectionData connectionData;
    private RdmaException withdrawnReason;
    /** The application accepted: from here a lost socket fails establishment instead of withdrawing the request. */
    private boolean accepted;

    private PassiveHandshake(SoftConnection connection, ListenEvents listenEvents) {
        super(connection, Step.AWAITING_REQUEST);
        this.listenEvents = listenEvents;
    }

    /** Takes over a socket a listener accepted: its MPA Request is awaited for up to the handshake timeout. */
    static void accepted(SoftEventLoop loop, SocketChannel channel, ListenEvents events) {
        SoftConnection connection = new SoftConnection(loop, channel, new ConnectionLifecycle());
        PassiveHandshake handshake = new PassiveHandshake(connection, events);
        connection.handshake(handshake);
        MpaTransport transport = connection.transport();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            connection.setLocalAddress((InetSocketAddress) channel.getLocalAddress());
            connection.setRemoteAddress((InetSocketAddress) channel.getRemoteAddress());
            transport.register(SelectionKey.OP_READ);
        } catch (IOException e) {
            LOG.debug("accepted socket failed before MPA: {}", e.toString());
            connection.close();
            return;
        }
        transport.arm(handshake.handshakeTimeout(), () -> {
            LOG.debug("{} sent no MPA Request within the handshake timeout", connection.remoteAddress());
            connection.close();
        });
    }

    @Override
    boolean consume(ByteBuffer inbound) throws MpaProtocolException {
        switch (step) {
            case AWAITING_REQUEST -> {
                MpaMessage received = MpaMessage.decode(inbound, false);
                if (received == null) {
                    return false;
                }
                onRequest(received);
                return true;
            }
            case AWAITING_RTR -> {
                ByteBuffer ulpdu = framing.unframe(inbound, DdpHeader.TAGGED_LENGTH, 0xFFFF);
                if (ulpdu == null) {
                    return false;
                }
                if (Terminate.PENDING_EXPIRED.equals(Terminate.carriedBy(ulpdu))) {
                    connection.failEstablishment(new RdmaException(Status.IO_TIMEOUT, "peer "
                            + connection.remoteAddress() + " did not complete the connection before its deadline"));
                    return false;
                }
                if (!DdpHeader.isZeroLengthWrite(ulpdu)) {
                    throw new MpaProtocolException(Status.INVALID_NETWORK_RESPONSE,
                            "peer's first FPDU is not the agreed ready-to-receive zero-length RDMA Write");
                }
                connection.establish(framing, connectionData);
                return true;
            }
            default -> throw new MpaProtocolException(Status.INVALID_NETWORK_RESPONSE,
                    "peer sent data before its request was answered");
        }
    }

    private void onRequest(MpaMessage received) {
        request = received;
        if (received.markers()) {
            LOG.info("refusing {}: it demands MPA markers, which RdmaFutures does not implement",
                    connection.remoteAddress());
            refuse(new byte[0], null);
            return;
        }
        step = Step.AWAITING_ANSWER;
        connection.loop().awaitsPeer(connection, false); // the application answers next, not the peer
        transport.arm(handshakeTimeout(), () -> withdraw(new RdmaException(Status.IO_TIMEOUT, "request from "
                + connection.remoteAddress() + " was not answered within the handshake timeout"), true));
        listenEvents.onRequest(this);
    }

    private Duration handshakeTimeout() {
        return device.config().handshakeTimeout();
    }

    private boolean awaitingAnswer() {
        return step == Step.AWAITING_ANSWER && !accepted && lifecycle.isEstablishing();
    }

    /** The request can no longer be answered: tell the listener, and the peer if {@code tellPeer}. */
    private void withdraw(RdmaException reason, boolean tellPeer) {
        if (!awaitingAnswer()) {
            return;
        }
        withdrawnReason = reason;
        if (tellPeer) {
            refuse(new byte[0], null);
        } else {
            connection.close();
        }
        listenEvents.onRequestWithdrawn(this, reason);
    }

    /** Sends a rejecting Reply and closes once it is out; {@code sent} runs then. */
    private void refuse(byte[] privateData, Runnable sent) {
        sendReply(true, new ReadLimits(0, 0), false, privateData);
        lifecycle.close();
        transport.closeAfterFlush(sent);
    }

    @Override
    public PollerContext poller() {
        return connection.poller();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return connection.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return connection.localAddress();
    }

    @Override
    public byte[] privateData() {
        return request.privateData();
    }

    @Override
    public ReadLimits requestedReadLimits() {
        return request.enhanced() ? new ReadLimits(request.ird(), request.ord())
                : ReadLimitNegotiation.offer(ReadLimits.DEFAULT, device.adapterInfo());
    }

    @Override
    public void accept(ReadLimits readLimits, QueueDepths queueDepths, ProviderDomain domain,
                       ProviderSharedReceiveQueue sharedReceiveQueue, byte[] privateData,
                       ConnectionEvents connectionEvents, EstablishEvents events) {
        if (!awaitingAnswer()) {
            events.onFailed(notAnswerable());
            return;
        }
        accepted = true;
        lifecycle.report(events, connectionEvents);
        connection.openIn(domain, sharedReceiveQueue, connectionEvents);
        ReadLimits effective = negotiate(readLimits, request);
        connectionData = new ConnectionData(effective, request.privateData());
        framing = new FpduFraming(replyCrc());
        boolean rtrAgreed = request.enhanced() && request.peerToPeer()
                && (request.rtrTypes() & MpaMessage.RTR_WRITE) != 0;
        sendReply(false, effective, rtrAgreed, privateData);
        if (transport.isClosed()) {
            return; // writing the Reply failed: establishment failed, and that was reported
        }
        if (rtrAgreed) {
            step = Step.AWAITING_RTR;
            connection.loop().awaitsPeer(connection, true);
            transport.arm(handshakeTimeout(), () -> connection.failEstablishment(new RdmaException(Status.IO_TIMEOUT,
                    "peer " + connection.remoteAddress() + " did not complete the connection within the handshake "
                            + "timeout")));
        } else {
            connection.establish(framing, connectionData);
        }
    }

    @Override
    public void reject(byte[] privateData, Consumer<RdmaException> done) {
        if (!awaitingAnswer()) {
            done.accept(notAnswerable());
            return;
        }
        refuse(privateData, () -> done.accept(null));
    }

    private RdmaException notAnswerable() {
        if (withdrawnReason != null) {
            return new RdmaException(withdrawnReason.status(), withdrawnReason.getMessage(), withdrawnReason);
        }
        return new RdmaException(Status.INVALID_DEVICE_STATE, "the request from " + connection.remoteAddress()
                + " was already answered");
    }

    /** CRC32c when the initiator asked for it or we do. */
    private boolean replyCrc() {
        return request.crc() || device.crcRequested();
    }

    private void sendReply(boolean reject, ReadLimits limits, boolean peerToPeer, byte[] privateData) {
        MpaMessage reply = MpaMessage.replyTo(request, replyCrc(), reject, limits.inbound(), limits.outbound(),
                peerToPeer, peerToPeer ? MpaMessage.RTR_WRITE : 0, privateData);
        transport.send(reply.encode());
    }

    @Override
    void onEndOfStream() {
        if (awaitingAnswer()) {
            withdraw(new RdmaException(Status.CONNECTION_ABORTED,
                    "peer " + connection.remoteAddress() + " abandoned its connection request"), false);
        } else {
            connection.failEstablishment(abandoned());
        }
    }

    @Override
    void onTransportError(IOException e) {
        if (awaitingAnswer()) {
            withdraw(new RdmaException(Status.CONNECTION_ABORTED,
                    "peer " + connection.remoteAddress() + " reset the connection", e), false);
        } else {
            connection.failEstablishment(resetDuringEstablishment(e));
        }
    }

    @Override
    void giveUp(RdmaException error) {
        if (awaitingAnswer()) {
            withdraw(error, false);
        } else {
            connection.failEstablishment(error);
        }
    }
}
