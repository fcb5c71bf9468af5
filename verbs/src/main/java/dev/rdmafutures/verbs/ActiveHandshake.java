package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.spi.PendingHandle;
import dev.rdmafutures.providerkit.ReadLimitNegotiation;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active side's handshake: bind (a shared endpoint's address with REUSEADDR), resolve the address and the route,
 * create the queue pair, connect. A two-phase connect stops when the peer accepts (PENDING): on IB/RoCE its QP is
 * detached, the CM stops at CONNECT_RESPONSE and {@link #complete()} moves the QP to RTS and sends the RTU, while a
 * reject answers the peer's REP with a REJ, and an expiry with a REJ carrying {@link VerbsErrors#EXPIRED_MARKER}
 * (the peer's accept fails with IO_TIMEOUT); on iWARP the CM has already established both sides, so completing is
 * local and abandoning disconnects. Poller thread only.
 */
final class ActiveHandshake implements Handshake, ConnectAttempt, PendingHandle {
    private static final Logger LOG = LoggerFactory.getLogger(ActiveHandshake.class);
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final int RNR_RETRY_INFINITE = 7;
    private static final byte[] NO_DATA = new byte[0];

    private final VerbsConnection connection;
    private final ConnectionLifecycle lifecycle;
    private final ConnectSpec spec;
    private final ConnectionEvents connectionEvents;
    private final ConnectEvents events;
    private Step step = Step.RESOLVING_ADDRESS;
    private ConnectionData connectionData;

    private ActiveHandshake(VerbsConnection connection, ConnectSpec spec, ConnectionEvents connectionEvents,
                            ConnectEvents events) {
        this.connection = connection;
        this.lifecycle = connection.lifecycle();
        this.spec = spec;
        this.connectionEvents = connectionEvents;
        this.events = events;
        connection.establishedBy(this);
    }

    /** Starts connecting as {@code spec} says; the outcome goes to {@code events}. */
    static ConnectAttempt start(VerbsEventLoop loop, ConnectSpec spec, ConnectionEvents connectionEvents,
                                ConnectEvents events) {
        RdmaCmId id;
        try {
            id = loop.device().cm().createId(loop.ownChannel(), RdmaCm.RDMA_PS_TCP);
        } catch (IOException e) {
            events.onFailed(VerbsErrors.of(e, false, "create a CM id"));
            return error -> { };
        }
        VerbsConnection connection = new VerbsConnection(loop, id,
                new ConnectionLifecycle(events, connectionEvents));
        connection.addresses(null, spec.destination());
        ActiveHandshake handshake = new ActiveHandshake(connection, spec, connectionEvents, events);
        handshake.resolve();
        return handshake;
    }

    @Override
    public Step step() {
        return step;
    }

    private void resolve() {
        RdmaCmId id = connection.id();
        boolean shared = spec.sharedAddress() != null;
        InetSocketAddress source = shared ? spec.sharedAddress().localAddress() : spec.localAddress();
        try {
            if (shared) {
                int rc = NativeVerbs.setReuseAddr(connection.idHandle(), 1);
                if (rc < 0) {
                    fail(VerbsErrors.of(-rc, false, "REUSEADDR"));
                    return;
                }
            }
            if (source != null) {
                id.bindAddr(source);
            }
        } catch (IOException e) {
            fail(VerbsErrors.of(e, VerbsErrors.ephemeralOnLocalAddress(source), "bind " + source));
            return;
        }
        try {
            id.resolveAddr(null, spec.destination(), RESOLVE_TIMEOUT_MS);
        } catch (IOException e) {
            fail(VerbsErrors.of(e, false, "resolve " + spec.destination()));
        }
    }

    @Override
    public void onCmEvent(CmEvent event) throws IOException {
        switch (event.type()) {
            case CmEvent.ADDR_RESOLVED -> onAddressResolved();
            case CmEvent.ROUTE_RESOLVED -> onRouteResolved();
            case CmEvent.ADDR_ERROR, CmEvent.ROUTE_ERROR -> fail(VerbsErrors.resolution(event.status(),
                    event.type() == CmEvent.ROUTE_ERROR, spec.destination()));
            case CmEvent.REJECTED -> fail(awaitingPeer()
                    ? refused(event) : new RdmaException(Status.CONNECTION_ABORTED, spec.destination()
                            + " rejected the connection after our accept"));
            case CmEvent.UNREACHABLE, CmEvent.CONNECT_ERROR -> fail(awaitingPeer()
                    ? VerbsErrors.connectFailed(event.type(), event.status(), spec.destination())
                    : new RdmaException(Status.CONNECTION_ABORTED, spec.destination() + " abandoned the connection ("
                            + event + ")"));
            case CmEvent.ESTABLISHED -> onEstablished(event);
            case CmEvent.CONNECT_RESPONSE -> onConnectResponse(event);
            case CmEvent.DISCONNECTED -> {
                if (step == Step.CONNECTING) {
                    fail(new RdmaException(Status.CONNECTION_ABORTED, spec.destination()
                            + " disconnected before the connection was complete"));
                }
            }
            default -> { }
        }
    }

    /** Whether the connect is out and the peer has not yet answered it. */
    private boolean awaitingPeer() {
        return step == Step.CONNECTING && lifecycle.phase() == ConnectionLifecycle.Phase.ESTABLISHING;
    }

    private RdmaException refused(CmEvent event) {
        RdmaException refused = VerbsErrors.rejected(event.status(), spec.destination());
        return new RdmaException(refused.status(), refused.getMessage(), null, event.privateData());
    }

    private void onAddressResolved() throws IOException {
        if (step != Step.RESOLVING_ADDRESS) {
            return;
        }
        VerbsDevice device = connection.loop().device();
        if (((NatObject) connection.id().getVerbs()).getObjId() != device.contextHandle()) {
            fail(new RdmaException(Status.INVALID_ADDRESS, spec.destination() + " is not reached through "
                    + device.adapterInfo().deviceName()));
            return;
        }
        step = Step.RESOLVING_ROUTE;
        connection.id().resolveRoute(RESOLVE_TIMEOUT_MS);
    }

    private void onRouteResolved() {
        if (step != Step.RESOLVING_ROUTE) {
            return;
        }
        AdapterInfo adapter = connection.loop().device().adapterInfo();
        boolean detached = spec.twoPhase() && adapter.passiveAcceptWaitsForCompleteConnect();
        int qpNumber = 0;
        boolean sharedQueue = spec.sharedReceiveQueue() != null;
        try {
            VerbsQueuePair queuePair = connection.createQueuePair(detached, spec.queueDepths(), spec.domain(),
                    spec.sharedReceiveQueue(), connectionEvents);
            connection.addresses((InetSocketAddress) connection.id().getSource(), null);
            if (detached) {
                int rc = queuePair.moveToInit(connection.idHandle());
                if (rc < 0) {
                    fail(VerbsErrors.of(-rc, false, "move the queue pair to INIT"));
                    return;
                }
                qpNumber = queuePair.number();
            }
        } catch (IOException e) {
            fail(VerbsErrors.of(e, false, "create a queue pair"));
            return;
        } catch (RdmaException e) {
            fail(e);
            return;
        }
        ReadLimits offer = ReadLimitNegotiation.offer(spec.readLimits(), adapter);
        ByteBuffer data = VerbsConnection.direct(spec.privateData());
        connection.applyAckTimeout();
        int rc = NativeVerbs.connect(connection.idHandle(), offer.inbound(), offer.outbound(),
                connection.loop().device().retryBudget().retryCount(),
                RNR_RETRY_INFINITE, MemoryUtils.getAddress(data), spec.privateData().length, qpNumber,
                sharedQueue ? 1 : 0);
        if (rc < 0) {
            fail(VerbsErrors.of(-rc, false, "connect"));
            return;
        }
        step = Step.CONNECTING;
    }

    private void onEstablished(CmEvent event) {
        if (!awaitingPeer()) {
            return;
        }
        AdapterInfo adapter = connection.loop().device().adapterInfo();
        ReadLimits peer = adapter.transport() == AdapterInfo.Transport.IWARP
                ? event.peerReadLimitsAsSent() : event.peerReadLimits();
        connectionData = new ConnectionData(ReadLimitNegotiation.effective(spec.readLimits(), adapter, peer),
                event.privateData());
        connection.queuePair().shortenRnrTimer(); // librdmacm moved the QP to RTS before it reported ESTABLISHED
        if (spec.twoPhase()) {
            // The CM established the QP already (it is attached); the second phase is local (docs/native-abi.md §5.5).
            lifecycle.accepted();
            events.onAccepted(this, connectionData);
            return;
        }
        connection.becomeEstablished(connectionData);
    }

    /** IB/RoCE two-phase connect: the peer accepted; our QP waits in INIT until {@link #complete()}. */
    private void onConnectResponse(CmEvent event) {
        if (!awaitingPeer()) {
            return;
        }
        connectionData = new ConnectionData(ReadLimitNegotiation.effective(spec.readLimits(),
                connection.loop().device().adapterInfo(), event.peerReadLimits()), event.privateData());
        lifecycle.accepted();
        events.onAccepted(this, connectionData);
    }

    @Override
    public void complete() {
        if (lifecycle.phase() != ConnectionLifecycle.Phase.PENDING) {
            return;
        }
        VerbsQueuePair queuePair = connection.queuePair();
        if (queuePair.isDetached()) {
            ReadLimits limits = connectionData.readLimits();
            int rc = queuePair.moveToReadyToSend(connection.idHandle(), limits.inbound(), limits.outbound());
            if (rc >= 0) {
                queuePair.shortenRnrTimer(); // the CM's RTR attributes carried its RNR timer
                rc = NativeVerbs.establish(connection.idHandle());
            }
            if (rc < 0) {
                fail(new RdmaException(Status.CONNECTION_ABORTED, "completing the connection to "
                        + spec.destination() + " failed: errno " + -rc));
                return;
            }
        }
        connection.becomeEstablished(connectionData);
    }

    @Override
    public void reject() {
        if (lifecycle.phase() == ConnectionLifecycle.Phase.PENDING) {
            fail(new RdmaException(Status.CANCELED, "this side rejected the accepted connection"));
        }
    }

    @Override
    public void expire(RdmaException timeout) {
        if (lifecycle.phase() == ConnectionLifecycle.Phase.PENDING) {
            end(timeout, VerbsErrors.EXPIRED_MARKER);
        }
    }

    @Override
    public void abort(RdmaException error) {
        fail(error);
    }

    @Override
    public void fail(RdmaException error) {
        end(error, NO_DATA);
    }

    /** Fails establishment; a peer that accepted and waits gets a REJ with {@code rejectData}, or a disconnect. */
    private void end(RdmaException error, byte[] rejectData) {
        if (!lifecycle.isEstablishing()) {
            return;
        }
        LOG.debug("{}: failed: {}", connection, error.getMessage());
        if (lifecycle.phase() == ConnectionLifecycle.Phase.PENDING) {
            // The peer accepted and waits: a reject (IB/RoCE, detached QP) or a disconnect aborts its accept.
            if (connection.queuePair().isDetached()) {
                connection.reject(rejectData);
            } else {
                connection.cmDisconnect();
            }
        }
        connection.release();
        lifecycle.failed(error);
    }
}
