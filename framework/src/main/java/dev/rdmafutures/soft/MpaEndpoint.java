package dev.rdmafutures.soft;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.EstablishEvents;
import dev.rdmafutures.spi.IncomingRequest;
import dev.rdmafutures.spi.ListenEvents;
import dev.rdmafutures.spi.PendingHandle;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.ReadLimitNegotiation;
import dev.rdmafutures.spi.WorkRequest;
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
 * One soft connection, both roles, through its whole life: TCP connect or accept, the MPA Request/Reply exchange
 * with private data and IRD/ORD (RFC 6581 enhanced setup), the peer-to-peer ready-to-receive message that confirms
 * a two-phase connect, the established FPDU stream, and disconnect. Confined to its loop's poller thread.
 *
 * <p>As initiator it offers peer-to-peer mode with a zero-length RDMA Write as RTR; as responder it agrees when
 * the initiator offers that RTR type, and otherwise establishes as soon as its Reply is sent.
 */
final class MpaEndpoint implements SelectionHandler, ConnectAttempt, PendingHandle, IncomingRequest,
        ProviderConnection {
    private static final Logger LOG = LoggerFactory.getLogger(MpaEndpoint.class);
    /**
     * Room for the largest MPA message; the RTR after it is smaller. Once established, the queue pair parses the
     * stream with its own staging buffer, so this stays small for every connection.
     */
    private static final int RECEIVE_BUFFER = MpaMessage.HEADER_LENGTH + MpaMessage.MAX_PRIVATE_DATA;

    private enum State {
        CONNECTING, AWAITING_REPLY, AWAITING_COMPLETION, AWAITING_REQUEST, AWAITING_ANSWER, AWAITING_RTR,
        ESTABLISHED, DISCONNECTING, CLOSED
    }

    private final SoftEventLoop loop;
    private final SoftDevice device;
    private final SocketChannel channel;
    private final OutboundQueue outbound = new OutboundQueue();
    private SoftQueuePair queuePair;
    private SelectionKey key;
    private State state;
    /** Between reads in write mode (position = end of unread bytes); flipped only inside {@link #drainInbound}. */
    private final ByteBuffer inbound = ByteBuffer.allocate(RECEIVE_BUFFER);
    private boolean draining;
    private InetSocketAddress localAddress;
    private InetSocketAddress remoteAddress;
    private boolean shutdownAfterFlush;
    private Runnable afterFlush;
    private Cancellable deadline;

    private ReadLimits requestedLimits;
    private MpaMessage peerMessage;
    private ConnectionData connectionData;
    private FpduFraming framing;
    private boolean rtrAgreed;
    private RdmaException withdrawnReason;

    private EstablishEvents establishEvents;
    private ConnectEvents connectEvents;
    private ConnectionEvents connectionEvents;
    private ListenEvents listenEvents;
    private ConnectSpec spec;

    private MpaEndpoint(SoftEventLoop loop, SocketChannel channel, State initial) {
        this.loop = loop;
        this.device = loop.device();
        this.channel = channel;
        this.state = initial;
    }

    // ----------------------------------------------------------------------------------------------- active side

    static ConnectAttempt connect(SoftEventLoop loop, ConnectSpec spec, ConnectionEvents connectionEvents,
                                  ConnectEvents events) {
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            events.onFailed(SocketErrors.resources(e, "open socket"));
            return error -> { };
        }
        MpaEndpoint ep = new MpaEndpoint(loop, channel, State.CONNECTING);
        ep.spec = spec;
        ep.requestedLimits = spec.readLimits();
        ep.connectEvents = events;
        ep.establishEvents = events;
        ep.connectionEvents = connectionEvents;
        ep.remoteAddress = spec.destination();
        ep.startConnect();
        return ep;
    }

    /** The local address the connect binds: the shared endpoint's, the one asked for, or null for any. */
    private InetSocketAddress bindAddress() {
        return spec.sharedAddress() != null ? spec.sharedAddress().localAddress() : spec.localAddress();
    }

    private void startConnect() {
        InetSocketAddress bindTo = bindAddress();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            failEstablishment(SocketErrors.resources(e, "configure socket"));
            return;
        }
        if (bindTo != null) {
            try {
                if (spec.sharedAddress() != null) {
                    channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                }
                channel.bind(bindTo);
            } catch (IOException e) {
                failEstablishment(SocketErrors.onBind(e, bindTo));
                return;
            }
        }
        boolean ephemeral = bindTo == null || bindTo.getPort() == 0;
        try {
            key = loop.register(channel, 0, this);
            if (channel.connect(spec.destination())) {
                onTcpConnected();
            } else {
                key.interestOps(SelectionKey.OP_CONNECT);
            }
        } catch (IOException e) {
            failEstablishment(SocketErrors.onConnect(e, spec.destination(), ephemeral));
        }
    }

    private void finishTcpConnect() {
        try {
            if (channel.finishConnect()) {
                onTcpConnected();
            }
        } catch (IOException e) {
            InetSocketAddress bound = bindAddress();
            failEstablishment(SocketErrors.onConnect(e, spec.destination(), bound == null || bound.getPort() == 0));
        }
    }

    private void onTcpConnected() throws IOException {
        localAddress = (InetSocketAddress) channel.getLocalAddress();
        ReadLimits offer = ReadLimitNegotiation.offer(requestedLimits, device.adapterInfo());
        MpaMessage request = MpaMessage.request(device.crcRequested(), offer.inbound(), offer.outbound(),
                true, MpaMessage.RTR_WRITE, spec.privateData());
        peerMessage = request; // kept until the Reply arrives, to check the Reply against what we offered
        state = State.AWAITING_REPLY;
        key.interestOps(SelectionKey.OP_READ);
        send(request.encode());
    }

    private void onReply(MpaMessage reply) {
        MpaMessage request = peerMessage;
        peerMessage = reply;
        if (reply.markers()) {
            failEstablishment(new RdmaException(Status.NOT_SUPPORTED,
                    "peer " + remoteAddress + " demands MPA markers, which RdmaFutures does not implement"));
            return;
        }
        if (reply.reject()) {
            failEstablishment(new RdmaException(Status.CONNECTION_REFUSED,
                    "peer " + remoteAddress + " rejected the connection", null, reply.privateData()));
            return;
        }
        if (reply.peerToPeer() && reply.rtrTypes() != MpaMessage.RTR_WRITE) {
            failEstablishment(new RdmaException(Status.INVALID_NETWORK_RESPONSE,
                    "peer chose RTR type " + reply.rtrTypes() + "; only a zero-length RDMA Write was offered"));
            return;
        }
        rtrAgreed = reply.peerToPeer();
        framing = new FpduFraming(reply.crc());
        connectionData = new ConnectionData(negotiate(requestedLimits, reply), reply.privateData());
        LOG.debug("{} accepted by {}: {}, crc={}, rtr={}, request crc={}", localAddress, remoteAddress,
                connectionData, reply.crc(), rtrAgreed, request.crc());
        if (spec.twoPhase()) {
            state = State.AWAITING_COMPLETION;
            connectEvents.onAccepted(this, connectionData);
        } else {
            complete();
        }
    }

    @Override
    public void complete() {
        if (state != State.AWAITING_COMPLETION && state != State.AWAITING_REPLY) {
            return;
        }
        if (rtrAgreed) {
            send(framing.frame(DdpHeader.zeroLengthWrite()));
        }
        establish();
        if (!draining) {
            drainInbound(); // bytes the peer sent while we held the connection pending
            queuePair.onReadable();
        }
    }

    @Override
    public void expire(RdmaException timeout) {
        reject(); // not yet distinguishable on the wire: the peer sees CONNECTION_ABORTED
    }

    @Override
    public void reject() {
        if (state == State.AWAITING_COMPLETION) {
            failEstablishment(new RdmaException(Status.CANCELED, "this side rejected the accepted connection"));
        }
    }

    @Override
    public void abort(RdmaException error) {
        if (state == State.CONNECTING || state == State.AWAITING_REPLY || state == State.AWAITING_COMPLETION) {
            failEstablishment(error);
        }
    }

    // ---------------------------------------------------------------------------------------------- passive side

    static void accepted(SoftEventLoop loop, SocketChannel channel, ListenEvents events) {
        MpaEndpoint ep = new MpaEndpoint(loop, channel, State.AWAITING_REQUEST);
        ep.listenEvents = events;
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ep.localAddress = (InetSocketAddress) channel.getLocalAddress();
            ep.remoteAddress = (InetSocketAddress) channel.getRemoteAddress();
            ep.key = loop.register(channel, SelectionKey.OP_READ, ep);
        } catch (IOException e) {
            LOG.debug("accepted socket failed before MPA: {}", e.toString());
            ep.closeChannel();
            return;
        }
        ep.armDeadline(() -> {
            LOG.debug("{} sent no MPA Request within the handshake timeout", ep.remoteAddress);
            ep.closeChannel();
        });
    }

    private void onRequest(MpaMessage request) {
        peerMessage = request;
        if (request.markers()) {
            LOG.info("refusing {}: it demands MPA markers, which RdmaFutures does not implement", remoteAddress);
            sendReply(true, new ReadLimits(0, 0), false, new byte[0]);
            closeAfterFlush(null);
            return;
        }
        state = State.AWAITING_ANSWER;
        armDeadline(() -> withdraw(new RdmaException(Status.IO_TIMEOUT,
                "request from " + remoteAddress + " was not answered within the handshake timeout"), true));
        listenEvents.onRequest(this);
    }

    private void withdraw(RdmaException reason, boolean tellPeer) {
        if (state != State.AWAITING_ANSWER) {
            return;
        }
        withdrawnReason = reason;
        if (tellPeer) {
            sendReply(true, new ReadLimits(0, 0), false, new byte[0]);
            closeAfterFlush(null);
        } else {
            closeChannel();
        }
        listenEvents.onRequestWithdrawn(this, reason);
    }

    @Override
    public PollerContext poller() {
        return loop.poller();
    }

    @Override
    public byte[] privateData() {
        return peerMessage.privateData();
    }

    @Override
    public ReadLimits requestedReadLimits() {
        return peerMessage.enhanced() ? new ReadLimits(peerMessage.ird(), peerMessage.ord())
                : ReadLimitNegotiation.offer(ReadLimits.DEFAULT, device.adapterInfo());
    }

    @Override
    public void accept(ReadLimits readLimits, byte[] privateData, ConnectionEvents connEvents,
                       EstablishEvents events) {
        if (state != State.AWAITING_ANSWER) {
            events.onFailed(notAnswerable());
            return;
        }
        establishEvents = events;
        connectionEvents = connEvents;
        MpaMessage request = peerMessage;
        ReadLimits effective = negotiate(readLimits, request);
        connectionData = new ConnectionData(effective, request.privateData());
        framing = new FpduFraming(replyCrc());
        rtrAgreed = request.enhanced() && request.peerToPeer() && (request.rtrTypes() & MpaMessage.RTR_WRITE) != 0;
        sendReply(false, effective, rtrAgreed, privateData);
        if (rtrAgreed) {
            state = State.AWAITING_RTR;
            armDeadline(() -> failEstablishment(new RdmaException(Status.IO_TIMEOUT,
                    "peer " + remoteAddress + " did not complete the connection within the handshake timeout")));
        } else {
            establish();
        }
    }

    @Override
    public void reject(byte[] privateData, Consumer<RdmaException> done) {
        if (state != State.AWAITING_ANSWER) {
            done.accept(notAnswerable());
            return;
        }
        cancelDeadline();
        sendReply(true, new ReadLimits(0, 0), false, privateData);
        closeAfterFlush(() -> done.accept(null));
    }

    private RdmaException notAnswerable() {
        if (withdrawnReason != null) {
            return new RdmaException(withdrawnReason.status(), withdrawnReason.getMessage(), withdrawnReason);
        }
        return new RdmaException(Status.INVALID_DEVICE_STATE, "the request from " + remoteAddress
                + " was already answered");
    }

    /**
     * The effective limits against {@code peer}'s message: its IRD/ORD when enhanced; a revision-1 peer sends none,
     * so it is taken to match our offer.
     */
    private ReadLimits negotiate(ReadLimits requested, MpaMessage peer) {
        ReadLimits offer = ReadLimitNegotiation.offer(requested, device.adapterInfo());
        ReadLimits peerLimits = peer.enhanced() ? new ReadLimits(peer.ird(), peer.ord())
                : new ReadLimits(offer.outbound(), offer.inbound());
        return ReadLimitNegotiation.effective(requested, device.adapterInfo(), peerLimits);
    }

    /** As responder: CRC32c when the initiator asked for it or we do. */
    private boolean replyCrc() {
        return peerMessage.crc() || device.crcRequested();
    }

    private void sendReply(boolean reject, ReadLimits limits, boolean p2p, byte[] privateData) {
        MpaMessage request = peerMessage;
        MpaMessage reply = MpaMessage.replyTo(request, replyCrc(), reject, limits.inbound(), limits.outbound(), p2p,
                p2p ? MpaMessage.RTR_WRITE : 0, privateData);
        send(reply.encode());
    }

    // ------------------------------------------------------------------------------------------- both, I/O paths

    @Override
    public void onReady(SelectionKey readyKey) {
        if (!readyKey.isValid()) {
            return;
        }
        if (state == State.CONNECTING) {
            if (readyKey.isConnectable()) {
                finishTcpConnect();
            }
            return;
        }
        if (readyKey.isWritable()) {
            flush();
        }
        if (readyKey.isValid() && readyKey.isReadable() && state != State.CLOSED) {
            if (state == State.ESTABLISHED) {
                queuePair.onReadable();
            } else {
                readAvailable();
            }
        }
    }

    private void readAvailable() {
        int n;
        try {
            n = channel.read(inbound);
        } catch (IOException e) {
            onTransportError(e);
            return;
        }
        if (n < 0) {
            onEndOfStream();
            return;
        }
        drainInbound();
        if (state == State.ESTABLISHED) {
            queuePair.onReadable();
        }
    }

    private void drainInbound() {
        if (inbound.position() == 0 || state == State.CLOSED) {
            return;
        }
        inbound.flip();
        draining = true;
        try {
            processInbound();
        } catch (MpaProtocolException e) {
            onProtocolError(new RdmaException(e.status(), e.getMessage()));
        } finally {
            draining = false;
            if (state != State.CLOSED) {
                inbound.compact();
            }
        }
    }

    private void processInbound() throws MpaProtocolException {
        while (inbound.hasRemaining() && state != State.CLOSED) {
            switch (state) {
                case AWAITING_REPLY -> {
                    MpaMessage reply = MpaMessage.decode(inbound, true);
                    if (reply == null) {
                        return;
                    }
                    onReply(reply);
                }
                case AWAITING_REQUEST -> {
                    MpaMessage request = MpaMessage.decode(inbound, false);
                    if (request == null) {
                        return;
                    }
                    onRequest(request);
                }
                case AWAITING_ANSWER -> throw new MpaProtocolException(Status.INVALID_NETWORK_RESPONSE,
                        "peer sent data before its request was answered");
                case AWAITING_COMPLETION -> {
                    return; // held until complete(): the peer may send once it has accepted
                }
                case AWAITING_RTR -> {
                    ByteBuffer ulpdu = framing.unframe(inbound, DdpHeader.TAGGED_LENGTH, 0xFFFF);
                    if (ulpdu == null) {
                        return;
                    }
                    if (!DdpHeader.isZeroLengthWrite(ulpdu)) {
                        throw new MpaProtocolException(Status.INVALID_NETWORK_RESPONSE,
                                "peer's first FPDU is not the agreed ready-to-receive zero-length RDMA Write");
                    }
                    establish();
                }
                case ESTABLISHED -> {
                    queuePair.adopt(inbound); // from here on the queue pair parses the stream itself
                    return;
                }
                case DISCONNECTING -> inbound.position(inbound.limit()); // discarded: we are leaving
                default -> {
                    return;
                }
            }
        }
    }

    void onEndOfStream() {
        switch (state) {
            case AWAITING_REPLY -> failEstablishment(new RdmaException(Status.CONNECTION_REFUSED,
                    "peer " + remoteAddress + " closed the connection without an MPA Reply"));
            case AWAITING_COMPLETION, AWAITING_RTR -> failEstablishment(new RdmaException(Status.CONNECTION_ABORTED,
                    "peer " + remoteAddress + " abandoned the connection establishment"));
            case AWAITING_ANSWER -> withdraw(new RdmaException(Status.CONNECTION_ABORTED,
                    "peer " + remoteAddress + " abandoned its connection request"), false);
            case ESTABLISHED -> endConnection(DisconnectReason.PEER_DISCONNECTED);
            case DISCONNECTING -> endConnection(DisconnectReason.LOCAL_DISCONNECT);
            default -> closeChannel();
        }
    }

    void onTransportError(IOException e) {
        switch (state) {
            case AWAITING_REPLY -> failEstablishment(new RdmaException(Status.CONNECTION_REFUSED,
                    "peer " + remoteAddress + " reset the connection during MPA setup", e));
            case AWAITING_COMPLETION, AWAITING_RTR -> failEstablishment(new RdmaException(Status.CONNECTION_ABORTED,
                    "peer " + remoteAddress + " reset the connection during establishment", e));
            case AWAITING_ANSWER -> withdraw(new RdmaException(Status.CONNECTION_ABORTED,
                    "peer " + remoteAddress + " reset the connection", e), false);
            case ESTABLISHED -> endConnection(DisconnectReason.CONNECTION_RESET);
            case DISCONNECTING -> endConnection(DisconnectReason.LOCAL_DISCONNECT);
            default -> closeChannel();
        }
    }

    private void onProtocolError(RdmaException error) {
        LOG.warn("protocol error on connection {} -> {}: {}", localAddress, remoteAddress, error.getMessage());
        switch (state) {
            case AWAITING_REPLY, AWAITING_COMPLETION, AWAITING_RTR -> failEstablishment(error);
            case AWAITING_ANSWER -> withdraw(error, false);
            case ESTABLISHED, DISCONNECTING -> endConnection(DisconnectReason.PROTOCOL_ERROR);
            default -> closeChannel();
        }
    }

    private void send(ByteBuffer bytes) {
        outbound.add(bytes);
        flush();
    }

    /** What is queued for the socket; {@link #flush()} writes it. */
    OutboundQueue outbound() {
        return outbound;
    }

    /** Drops queued bytes not yet started; a partly written FPDU is kept so the stream stays framed. */
    private void dropUnsent() {
        outbound.dropUnsent();
    }

    void setReadInterest(boolean on) {
        if (key.isValid()) {
            key.interestOps(on ? key.interestOps() | SelectionKey.OP_READ : key.interestOps() & ~SelectionKey.OP_READ);
        }
    }

    void flush() {
        if (state == State.CLOSED) {
            return;
        }
        try {
            if (!outbound.writeTo(channel)) { // the socket's send buffer is full: continue when it drains
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                notifyFlushed();
                return;
            }
            notifyFlushed();
            if (key.isValid()) {
                key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
            }
            if (shutdownAfterFlush) {
                shutdownAfterFlush = false;
                channel.shutdownOutput();
                Runnable done = afterFlush;
                afterFlush = null;
                if (done != null) {
                    done.run();
                }
            }
        } catch (IOException e) {
            outbound.clear();
            onTransportError(e);
        }
    }

    /**
     * Sends what is queued, then FIN, then waits for the peer's FIN up to the disconnect timeout before closing;
     * {@code sent} runs once the queued bytes are out.
     */
    private void closeAfterFlush(Runnable sent) {
        state = State.DISCONNECTING;
        shutdownAfterFlush = true;
        afterFlush = sent;
        armDeadline(this::closeChannel, device.config().disconnectTimeout());
        flush();
    }

    // -------------------------------------------------------------------------------------- established connection

    private void notifyFlushed() {
        if (queuePair != null) {
            queuePair.onFlushed(outbound.flushedBytes());
        }
    }

    private void establish() {
        cancelDeadline();
        state = State.ESTABLISHED;
        queuePair = new SoftQueuePair(this, channel, device.regions(), framing,
                connectionData.readLimits().inbound(), connectionData.readLimits().outbound(),
                device.config().handshakeTimeout());
        loop.readDirectly(this);
        EstablishEvents events = establishEvents;
        establishEvents = null;
        events.onEstablished(this, connectionData);
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public void post(WorkRequest request) {
        if (state != State.ESTABLISHED) {
            request.completion().failed(new RdmaException(Status.CONNECTION_INVALID,
                    "connection " + localAddress + " -> " + remoteAddress + " is not connected"));
            return;
        }
        queuePair.post(request);
    }

    /** The queue pair found a violation: send its Terminate, report the end, close once it is out. */
    void terminateConnection(ByteBuffer terminate) {
        dropUnsent();
        state = State.DISCONNECTING;
        shutdownAfterFlush = true;
        armDeadline(this::closeChannel, device.config().disconnectTimeout());
        reportEnd(DisconnectReason.PROTOCOL_ERROR);
        send(terminate);
    }

    /** The peer sent a Terminate: the connection is over. */
    void onPeerTerminated() {
        endConnection(DisconnectReason.PROTOCOL_ERROR);
    }

    @Override
    public void disconnect() {
        if (state != State.ESTABLISHED) {
            return;
        }
        queuePair.flushAll(null);
        dropUnsent();
        state = State.DISCONNECTING;
        shutdownAfterFlush = true;
        armDeadline(() -> endConnection(DisconnectReason.LOCAL_DISCONNECT), device.config().disconnectTimeout());
        flush();
    }

    private void endConnection(DisconnectReason reason) {
        closeChannel();
        reportEnd(reason);
    }

    private void reportEnd(DisconnectReason reason) {
        if (queuePair != null) {
            queuePair.flushAll(null);
        }
        ConnectionEvents events = connectionEvents;
        connectionEvents = null;
        if (events != null) {
            events.onDisconnected(reason);
        }
    }

    // ------------------------------------------------------------------------------------------------- lifecycle

    private void failEstablishment(RdmaException error) {
        closeChannel();
        EstablishEvents events = establishEvents;
        establishEvents = null;
        connectionEvents = null;
        if (events != null) {
            events.onFailed(error);
        }
    }

    @Override
    public void onLoopClosed() {
        RdmaException closing = new RdmaException(Status.CANCELED, "the runtime was closed");
        switch (state) {
            case CONNECTING, AWAITING_REPLY, AWAITING_COMPLETION, AWAITING_RTR -> failEstablishment(closing);
            case AWAITING_ANSWER -> withdraw(closing, false);
            case ESTABLISHED, DISCONNECTING -> {
                if (connectionEvents != null) {
                    endConnection(DisconnectReason.RUNTIME_CLOSED);
                } else {
                    closeChannel();
                }
            }
            default -> closeChannel();
        }
    }

    private void armDeadline(Runnable onExpiry) {
        armDeadline(onExpiry, device.config().handshakeTimeout());
    }

    private void armDeadline(Runnable onExpiry, Duration after) {
        cancelDeadline();
        deadline = loop.poller().schedule(after, onExpiry);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel();
            deadline = null;
        }
    }

    /**
     * Reads and handles what the socket has without asking the selector (the loop does this while it has few
     * connections); returns whether bytes arrived.
     */
    boolean readDirectly() {
        return state == State.ESTABLISHED && queuePair.onReadable();
    }

    /** Whether bytes wait for the socket to take them (it reports writability through the selector). */
    boolean awaitsWritable() {
        return !outbound.isEmpty();
    }

    private void closeChannel() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        cancelDeadline();
        outbound.clear();
        loop.deregister(this);
        SoftDevice.closeQuietly(channel);
    }
}
