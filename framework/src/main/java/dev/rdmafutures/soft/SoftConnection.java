package dev.rdmafutures.soft;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.WorkRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One soft connection, either role, through its whole life: the handler of its socket's events, which its
 * {@link ConnectionLifecycle} phase routes (to the {@link MpaHandshake} while establishing, to the
 * {@link SoftQueuePair} once established), and the established {@link ProviderConnection}: post, disconnect, and
 * the end by Terminate. The lifecycle reports establishment and the end exactly once. Confined to its loop's
 * poller thread.
 */
final class SoftConnection implements SelectionHandler, ProviderConnection {

    private final SoftEventLoop loop;
    private final MpaTransport transport;
    private final ConnectionLifecycle lifecycle;
    private MpaHandshake handshake;
    private SoftQueuePair queuePair;
    private InetSocketAddress localAddress;
    private InetSocketAddress remoteAddress;
    /** The shared receive queue the queue pair will take receives from, or null for its own. */
    private SoftSharedReceiveQueue sharedReceives;
    /** The STag table of the connection's protection domain: the only one its peer's tokens are looked up in. */
    private RegionTable regions;
    /** The core's events of this connection: a shared queue's receives report them as where they arrived. */
    private ConnectionEvents connectionEvents;
    /** Inside {@link #drainInbound}: its loop hands the bytes after the current message on. */
    private boolean draining;
    /** Its place in its loop's list of established connections, -1 when not in it; the loop's to keep. */
    int establishedIndex = -1;
    /** Its handshake waits for the peer's next message, counted by its loop; the loop's to keep. */
    boolean awaitsPeer;
    /** Established and recently brought bytes, so polls read it directly; the loop's to keep. */
    boolean busy;
    /** Direct reads in a row that found nothing, and when the first of them ran; the loop's to keep. */
    int emptyReads;
    long quietSince;

    SoftConnection(SoftEventLoop loop, SocketChannel channel, ConnectionLifecycle lifecycle) {
        this.loop = loop;
        this.transport = new MpaTransport(loop, channel, this);
        this.lifecycle = lifecycle;
    }

    /**
     * The protection domain whose tokens the peer may use ({@code domain}, a {@link RegionTable}), and where the
     * established queue pair's receives will come from: {@code queue} (a {@link SoftSharedReceiveQueue}, or null for
     * its own queue), reporting {@code events} as the connection they arrived on.
     */
    void openIn(ProviderDomain domain, ProviderSharedReceiveQueue queue, ConnectionEvents events) {
        this.regions = (RegionTable) domain;
        this.sharedReceives = (SoftSharedReceiveQueue) queue;
        this.connectionEvents = events;
    }

    /** Hands establishment to {@code mpa}: it is told of socket events until the lifecycle leaves establishing. */
    void handshake(MpaHandshake mpa) {
        this.handshake = mpa;
        loop.awaitsPeer(this, true); // the TCP connect's end, or the initiator's MPA Request
    }

    SoftEventLoop loop() {
        return loop;
    }

    PollerContext poller() {
        return loop.poller();
    }

    MpaTransport transport() {
        return transport;
    }

    ConnectionLifecycle lifecycle() {
        return lifecycle;
    }

    void setLocalAddress(InetSocketAddress address) {
        this.localAddress = address;
    }

    void setRemoteAddress(InetSocketAddress address) {
        this.remoteAddress = address;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    // ------------------------------------------------------------------------------------------------ socket events

    @Override
    public void onReady(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (lifecycle.isEstablishing() && handshake.step == MpaHandshake.Step.CONNECTING) {
            if (key.isConnectable()) {
                ((ActiveHandshake) handshake).finishTcpConnect();
            }
            return;
        }
        if (key.isWritable()) {
            transport.flush();
        }
        if (key.isValid() && key.isReadable() && !transport.isClosed()) {
            if (lifecycle.isEstablished()) {
                if (queuePair.onReadable()) {
                    busy = true;
                    emptyReads = 0;
                }
            } else {
                readInbound();
            }
        }
    }

    /**
     * Reads and handles what the socket has without asking the selector (the loop does this while it has few
     * connections); returns whether bytes arrived.
     */
    boolean readDirectly() {
        return lifecycle.isEstablished() && queuePair.onReadable();
    }

    /** Whether the socket's send buffer was full at the last flush: the selector reports when it has room. */
    boolean waitsForSocketRoom() {
        return transport.waitsForRoom();
    }

    private void readInbound() {
        int n;
        try {
            n = transport.readInbound();
        } catch (IOException e) {
            onTransportError(e);
            return;
        }
        if (n < 0) {
            onEndOfStream();
            return;
        }
        drainInbound();
        if (lifecycle.isEstablished()) {
            queuePair.onReadable();
        }
    }

    /** Hands the MPA exchange's bytes to the handshake; what follows establishment goes to the queue pair. */
    private void drainInbound() {
        ByteBuffer inbound = transport.inbound();
        if (inbound.position() == 0 || transport.isClosed()) {
            return;
        }
        inbound.flip();
        draining = true;
        try {
            while (inbound.hasRemaining() && !transport.isClosed()) {
                if (lifecycle.isEstablishing()) {
                    if (!handshake.consume(inbound)) {
                        return; // more bytes needed, or held until the pending connection is completed
                    }
                } else if (lifecycle.isEstablished()) {
                    queuePair.adopt(inbound); // from here on the queue pair parses the stream itself
                    return;
                } else {
                    inbound.position(inbound.limit()); // discarded: we are leaving
                }
            }
        } catch (MpaProtocolException e) {
            onProtocolError(new RdmaException(e.status(), e.getMessage()));
        } finally {
            draining = false;
            if (!transport.isClosed()) {
                inbound.compact();
            }
        }
    }

    void onEndOfStream() {
        switch (lifecycle.phase()) {
            case ESTABLISHING, PENDING -> handshake.onEndOfStream();
            case ESTABLISHED -> endConnection(DisconnectReason.PEER_DISCONNECTED);
            case DISCONNECTING -> endConnection(DisconnectReason.LOCAL_DISCONNECT);
            case CLOSED -> transport.close();
        }
    }

    void onTransportError(IOException e) {
        switch (lifecycle.phase()) {
            case ESTABLISHING, PENDING -> handshake.onTransportError(e);
            case ESTABLISHED -> endConnection(DisconnectReason.CONNECTION_RESET);
            case DISCONNECTING -> endConnection(DisconnectReason.LOCAL_DISCONNECT);
            case CLOSED -> transport.close();
        }
    }

    /**
     * Logs a fault of the peer's, at most a WARN line per peer address a minute
     * ({@link dev.rdmafutures.providerkit.PeerFaultLog}).
     */
    void logPeerFault(String message) {
        loop.device().peerFaultLog().fault(remoteAddress, loop.poller().nanoTime(), message);
    }

    private void onProtocolError(RdmaException error) {
        logPeerFault("protocol error on connection " + localAddress + " -> " + remoteAddress + ": "
                + error.getMessage());
        switch (lifecycle.phase()) {
            case ESTABLISHING, PENDING -> handshake.giveUp(error);
            case ESTABLISHED, DISCONNECTING -> endConnection(DisconnectReason.PROTOCOL_ERROR);
            case CLOSED -> transport.close();
        }
    }

    @Override
    public void onLoopClosed() {
        if (lifecycle.isEstablishing()) {
            handshake.giveUp(new RdmaException(Status.CANCELED, "the runtime was closed"));
        } else if (lifecycle.isUp()) {
            endConnection(DisconnectReason.RUNTIME_CLOSED);
        } else {
            transport.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ establishment

    /** The handshake is done: the queue pair takes over the stream, and the lifecycle reports establishment. */
    void establish(FpduFraming framing, ConnectionData data) {
        transport.disarm();
        SoftDevice device = loop.device();
        queuePair = new SoftQueuePair(this, regions, framing, data.readLimits(),
                device.config().handshakeTimeout(), device.config().livenessTimeout(), sharedReceives,
                connectionEvents);
        transport.keepAlive(device.config().livenessTimeout());
        transport.attach(queuePair);
        loop.readDirectly(this);
        lifecycle.established(this, data);
    }

    /**
     * After a two-phase connect is completed outside a read: bytes the peer sent while we held the connection
     * pending go to the queue pair, which reads on. Inside a read, {@link #drainInbound} hands them on itself.
     */
    void readHeldBytes() {
        if (!draining) {
            drainInbound();
            queuePair.onReadable();
        }
    }

    /** Establishment failed: the socket closes, and the lifecycle reports {@code error} if anyone listens yet. */
    void failEstablishment(RdmaException error) {
        transport.close();
        lifecycle.failed(error);
    }

    /** Closes with nothing to report: a request that was never answered, or whose answer is on its way out. */
    void close() {
        transport.close();
        lifecycle.close();
    }

    // -------------------------------------------------------------------------------------------------- established

    @Override
    public void post(WorkRequest request) {
        if (!lifecycle.isEstablished()) {
            request.completion().failed(new RdmaException(Status.CONNECTION_INVALID,
                    "connection " + localAddress + " -> " + remoteAddress + " is not connected"));
            return;
        }
        queuePair.post(request);
    }

    @Override
    public void disconnect() {
        if (!lifecycle.isEstablished()) {
            return;
        }
        queuePair.flushAll();
        transport.dropUnsent();
        lifecycle.disconnecting();
        transport.shutdownAfterFlush(null, () -> endConnection(DisconnectReason.LOCAL_DISCONNECT));
        transport.flush();
    }

    /** The queue pair found a violation: send its Terminate, report the end, close once it is out. */
    void terminate(ByteBuffer terminateFpdu) {
        transport.dropUnsent();
        transport.shutdownAfterFlush(null, transport::close);
        reportEnd(DisconnectReason.PROTOCOL_ERROR);
        transport.send(terminateFpdu);
    }

    /** The queue pair found the peer silent past the liveness deadline (and failed its requests): the end. */
    void onSilentPeer() {
        endConnection(DisconnectReason.CONNECTION_RESET);
    }

    /** The peer sent a Terminate: the connection is over. */
    void onPeerTerminated() {
        endConnection(DisconnectReason.PROTOCOL_ERROR);
    }

    private void endConnection(DisconnectReason reason) {
        transport.close();
        reportEnd(reason);
    }

    private void reportEnd(DisconnectReason reason) {
        if (queuePair != null) {
            queuePair.flushAll();
        }
        lifecycle.ended(reason);
    }
}
