package dev.rdmafutures.soft;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import dev.rdmafutures.soft.rdmap.Terminate;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.spi.PendingHandle;
import dev.rdmafutures.providerkit.ReadLimitNegotiation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initiator's establishment: the TCP connect (from the shared endpoint's or the requested local address), an
 * MPA Request offering CRC, IRD/ORD and peer-to-peer mode with a zero-length RDMA Write as RTR, the Reply's checks,
 * and for a two-phase connect the {@link ConnectionLifecycle.Phase#PENDING} wait for {@link #complete},
 * {@link #reject} or {@link #expire}. Poller thread only.
 */
final class ActiveHandshake extends MpaHandshake implements ConnectAttempt, PendingHandle {
    private static final Logger LOG = LoggerFactory.getLogger(ActiveHandshake.class);

    private final ConnectSpec spec;
    private final ConnectEvents events;
    /** Our Request, kept to log it against the Reply. */
    private MpaMessage request;
    private FpduFraming framing;
    private ConnectionData connectionData;
    private boolean rtrAgreed;

    private ActiveHandshake(SoftConnection connection, ConnectSpec spec, ConnectEvents events) {
        super(connection, Step.CONNECTING);
        this.spec = spec;
        this.events = events;
    }

    /** Starts a connect on {@code loop}; the outcome goes to {@code events}. */
    static ConnectAttempt connect(SoftEventLoop loop, ConnectSpec spec, ConnectionEvents connectionEvents,
                                  ConnectEvents events) {
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            events.onFailed(SocketErrors.resources(e, "open socket"));
            return error -> { };
        }
        SoftConnection connection = new SoftConnection(loop, channel, new ConnectionLifecycle(events,
                connectionEvents));
        connection.setRemoteAddress(spec.destination());
        connection.openIn(spec.domain(), spec.sharedReceiveQueue(), connectionEvents);
        ActiveHandshake handshake = new ActiveHandshake(connection, spec, events);
        connection.handshake(handshake);
        handshake.startConnect();
        return handshake;
    }

    /** The local address the connect binds: the shared endpoint's, the one asked for, or null for any. */
    private InetSocketAddress bindAddress() {
        return spec.sharedAddress() != null ? spec.sharedAddress().localAddress() : spec.localAddress();
    }

    private void startConnect() {
        SocketChannel channel = transport.channel();
        InetSocketAddress bindTo = bindAddress();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            connection.failEstablishment(SocketErrors.resources(e, "configure socket"));
            return;
        }
        if (bindTo != null) {
            try {
                if (spec.sharedAddress() != null) {
                    channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                }
                channel.bind(bindTo);
            } catch (IOException e) {
                connection.failEstablishment(SocketErrors.onBind(e, bindTo));
                return;
            }
        }
        boolean ephemeral = bindTo == null || bindTo.getPort() == 0;
        try {
            transport.register(0);
            if (channel.connect(spec.destination())) {
                onTcpConnected();
            } else {
                transport.interest(SelectionKey.OP_CONNECT);
            }
        } catch (IOException e) {
            connection.failEstablishment(SocketErrors.onConnect(e, spec.destination(), ephemeral));
        }
    }

    /** The selector reports the TCP connect done. */
    void finishTcpConnect() {
        try {
            if (transport.channel().finishConnect()) {
                onTcpConnected();
            }
        } catch (IOException e) {
            InetSocketAddress bound = bindAddress();
            connection.failEstablishment(SocketErrors.onConnect(e, spec.destination(),
                    bound == null || bound.getPort() == 0));
        }
    }

    private void onTcpConnected() throws IOException {
        connection.setLocalAddress((InetSocketAddress) transport.channel().getLocalAddress());
        ReadLimits offer = ReadLimitNegotiation.offer(spec.readLimits(), device.adapterInfo());
        request = MpaMessage.request(device.crcRequested(), offer.inbound(), offer.outbound(), true,
                MpaMessage.RTR_WRITE, spec.privateData());
        step = Step.AWAITING_REPLY;
        transport.interest(SelectionKey.OP_READ);
        transport.send(request.encode());
    }

    @Override
    boolean consume(ByteBuffer inbound) throws MpaProtocolException {
        if (lifecycle.phase() == ConnectionLifecycle.Phase.PENDING) {
            return false; // held until complete(): the peer may send once it has accepted
        }
        MpaMessage reply = MpaMessage.decode(inbound, true);
        if (reply == null) {
            return false;
        }
        onReply(reply);
        return true;
    }

    private void onReply(MpaMessage reply) {
        InetSocketAddress peer = connection.remoteAddress();
        if (reply.markers()) {
            connection.failEstablishment(new RdmaException(Status.NOT_SUPPORTED,
                    "peer " + peer + " demands MPA markers, which RdmaFutures does not implement"));
            return;
        }
        if (reply.reject()) {
            connection.failEstablishment(new RdmaException(Status.CONNECTION_REFUSED,
                    "peer " + peer + " rejected the connection", null, reply.privateData()));
            return;
        }
        if (reply.peerToPeer() && reply.rtrTypes() != MpaMessage.RTR_WRITE) {
            connection.failEstablishment(new RdmaException(Status.INVALID_NETWORK_RESPONSE,
                    "peer chose RTR type " + reply.rtrTypes() + "; only a zero-length RDMA Write was offered"));
            return;
        }
        rtrAgreed = reply.peerToPeer();
        framing = new FpduFraming(reply.crc());
        connectionData = new ConnectionData(negotiate(spec.readLimits(), reply), reply.privateData());
        LOG.debug("{} accepted by {}: {}, crc={}, rtr={}, request crc={}", connection.localAddress(), peer,
                connectionData, reply.crc(), rtrAgreed, request.crc());
        if (spec.twoPhase()) {
            lifecycle.accepted();
            connection.loop().awaitsPeer(connection, false); // held for the application's complete() or reject()
            events.onAccepted(this, connectionData);
        } else {
            establish();
        }
    }

    @Override
    public void complete() {
        if (lifecycle.phase() == ConnectionLifecycle.Phase.PENDING && establish()) {
            connection.readHeldBytes();
        }
    }

    /**
     * Sends the RTR if one was agreed, then establishes; false if the socket failed first (establishment failed,
     * and that was reported).
     */
    private boolean establish() {
        if (rtrAgreed) {
            transport.send(framing.frame(DdpHeader.zeroLengthWrite()));
            if (transport.isClosed()) {
                return false;
            }
        }
        connection.establish(framing, connectionData);
        return true;
    }

    /**
     * In peer-to-peer mode the responder waits for our RTR: {@link Terminate#PENDING_EXPIRED} goes in its place, so
     * that its accept fails with IO_TIMEOUT, and the socket closes once it is out. Without an RTR the responder is
     * already established and sees the close.
     */
    @Override
    public void expire(RdmaException timeout) {
        if (lifecycle.phase() != ConnectionLifecycle.Phase.PENDING) {
            return;
        }
        if (!rtrAgreed) {
            connection.failEstablishment(timeout);
            return;
        }
        transport.outbound().add(framing.frame(Terminate.PENDING_EXPIRED.message()));
        lifecycle.failed(timeout); // reported first: from here a lost socket only closes it
        transport.closeAfterFlush(null);
    }

    @Override
    public void reject() {
        if (lifecycle.phase() == ConnectionLifecycle.Phase.PENDING) {
            connection.failEstablishment(new RdmaException(Status.CANCELED,
                    "this side rejected the accepted connection"));
        }
    }

    @Override
    public void abort(RdmaException error) {
        if (lifecycle.isEstablishing()) {
            connection.failEstablishment(error);
        }
    }

    @Override
    void onEndOfStream() {
        connection.failEstablishment(lifecycle.phase() == ConnectionLifecycle.Phase.PENDING ? abandoned()
                : new RdmaException(Status.CONNECTION_REFUSED,
                        "peer " + connection.remoteAddress() + " closed the connection without an MPA Reply"));
    }

    @Override
    void onTransportError(IOException e) {
        connection.failEstablishment(lifecycle.phase() == ConnectionLifecycle.Phase.PENDING
                ? resetDuringEstablishment(e)
                : new RdmaException(Status.CONNECTION_REFUSED,
                        "peer " + connection.remoteAddress() + " reset the connection during MPA setup", e));
    }

    @Override
    void giveUp(RdmaException error) {
        connection.failEstablishment(error);
    }
}
