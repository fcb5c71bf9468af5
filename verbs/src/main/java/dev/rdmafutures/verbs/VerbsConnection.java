package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One CM id and, once created, its queue pair: the connection's {@link ConnectionLifecycle}, its addresses, the
 * established connection's data path entry, and its teardown (our disconnect, the peer's, a remote error, a failure
 * of this side's device, the loop's close). A {@link Handshake} role, active or passive, gets it established.
 * Poller thread only, except the address accessors.
 */
final class VerbsConnection implements ProviderConnection {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsConnection.class);

    private final VerbsEventLoop loop;
    private final RdmaCmId id;
    private final long idHandle;
    private final ConnectionLifecycle lifecycle;
    private Handshake handshake;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    private VerbsQueuePair queuePair;
    /** The device port the connection runs on, known with its queue pair. */
    private int port;
    /** The handshake's timeout, a lost connection's wait for the CM, or the disconnect's bound: one at a time. */
    private Cancellable deadline;
    private DisconnectReason disconnectReason;
    private boolean closing;
    private boolean released;
    private PeerRefusals peerRefusals;

    /** A connection of {@code id}, whose CM events {@code loop} routes here from now on. */
    VerbsConnection(VerbsEventLoop loop, RdmaCmId id, ConnectionLifecycle lifecycle) {
        this.loop = loop;
        this.id = id;
        this.idHandle = ((NatObject) id).getObjId();
        this.lifecycle = lifecycle;
        loop.track(idHandle, this);
    }

    /** Sets the role that establishes this connection; once, right after construction. */
    void establishedBy(Handshake role) {
        this.handshake = role;
    }

    VerbsEventLoop loop() {
        return loop;
    }

    RdmaCmId id() {
        return id;
    }

    long idHandle() {
        return idHandle;
    }

    ConnectionLifecycle lifecycle() {
        return lifecycle;
    }

    boolean isEstablished() {
        return lifecycle.isEstablished();
    }

    /** Whether the handshake is under way: connecting, accepting, or accepted and waiting for its completion. */
    boolean isEstablishing() {
        return lifecycle.isEstablishing();
    }

    /** The queue pair, or null before the handshake created it. */
    VerbsQueuePair queuePair() {
        return queuePair;
    }

    void addresses(InetSocketAddress local, InetSocketAddress remote) {
        if (local != null) {
            this.localAddress = local;
        }
        if (remote != null) {
            this.remoteAddress = remote;
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /**
     * Creates the queue pair with {@code depths} in {@code domain}, taking its receives from {@code sharedQueue}
     * unless it is null; {@code events} is the connection the core knows, which its shared receives report. On failure,
     * {@link #release()} destroys what was created.
     *
     * @throws RdmaException INVALID_DEVICE_STATE when the shared receive queue was closed meanwhile
     */
    VerbsQueuePair createQueuePair(boolean detached, QueueDepths depths, ProviderDomain domain,
                                   ProviderSharedReceiveQueue sharedQueue, ConnectionEvents events) throws IOException {
        port = loop.portOf(idHandle);
        queuePair = new VerbsQueuePair(this, loop, detached, depths, (VerbsDomain) domain,
                (VerbsSharedReceiveQueue) sharedQueue, events);
        peerRefusals = new PeerRefusals(queuePair, loop.device().adapterInfo().transport());
        queuePair.open(idHandle);
        return queuePair;
    }

    /**
     * Gives the QP the ACK timeout of the device's retry budget (its retry count goes with {@code rdma_connect});
     * before connect or accept. A kernel that refuses the option leaves the CM's timeout, which it says.
     */
    void applyAckTimeout() {
        RetryBudget budget = loop.device().retryBudget();
        int rc = NativeVerbs.setAckTimeout(idHandle(), budget.ackTimeout());
        if (rc < 0) {
            LOG.warn("{}: the kernel refused ACK timeout {} (errno {}): a silent peer fails requests after the CM's"
                    + " timeout x {} tries instead of {}", this, budget.ackTimeout(), -rc, budget.retryCount() + 1,
                    budget.duration());
        }
    }

    /** Runs {@code task} after {@code delay} unless cancelled first; replaces the pending deadline. */
    void schedule(Duration delay, Runnable task) {
        cancelDeadline();
        deadline = loop.poller().schedule(delay, task);
    }

    void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel();
            deadline = null;
        }
    }

    /** {@code rdma_reject} with {@code privateData}; 0 or a negative errno. */
    int reject(byte[] privateData) {
        ByteBuffer data = direct(privateData);
        return NativeVerbs.reject(idHandle, MemoryUtils.getAddress(data), privateData.length);
    }

    /** A native copy of {@code data} (at least one byte, so that it has an address). */
    static ByteBuffer direct(byte[] data) {
        ByteBuffer copy = ByteBuffer.allocateDirect(Math.max(1, data.length));
        copy.put(data).flip();
        return copy;
    }

    // --- CM events ---------------------------------------------------------------------------------------------

    void onCmEvent(CmEvent event) throws IOException {
        LOG.debug("{}: {}", this, event);
        switch (event.type()) {
            case CmEvent.ADDR_RESOLVED, CmEvent.ADDR_ERROR, CmEvent.ROUTE_RESOLVED, CmEvent.ROUTE_ERROR,
                 CmEvent.CONNECT_RESPONSE, CmEvent.CONNECT_ERROR, CmEvent.UNREACHABLE, CmEvent.REJECTED,
                 CmEvent.ESTABLISHED -> {
                if (lifecycle.isEstablishing()) {
                    handshake.onCmEvent(event);
                }
            }
            case CmEvent.DISCONNECTED -> {
                if (lifecycle.isUp()) {
                    onDisconnectedEvent();
                } else if (lifecycle.isEstablishing()) {
                    handshake.onCmEvent(event);
                }
            }
            case CmEvent.DEVICE_REMOVAL -> endOnDeviceFailure(new RdmaException(Status.DEVICE_REMOVED,
                    "the RDMA device went away (RDMA_CM_EVENT_DEVICE_REMOVAL)"));
            case CmEvent.TIMEWAIT_EXIT, CmEvent.ADDR_CHANGE -> { } // informational: the connection is unaffected
            default -> loop.poller().recordError("verbs CM", new IllegalStateException("unexpected " + event
                    + " in " + this)); // multicast events: RC ids never join groups
        }
    }

    /** Establishment succeeded: the addresses as the CM has them now, and the lifecycle's one report. */
    void becomeEstablished(ConnectionData data) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: established, {}; {}", this, data.readLimits(), queuePair.describe());
        }
        try {
            addresses((InetSocketAddress) id.getSource(), (InetSocketAddress) id.getDestination());
        } catch (IOException e) {
            loop.poller().recordError("verbs addresses", e);
        }
        lifecycle.established(this, data);
        queuePair.outcomes().reportHeldReceives();
    }

    // --- data path ---------------------------------------------------------------------------------------------

    @Override
    public void post(WorkRequest request) {
        if (lifecycle.isEstablished()) {
            queuePair.post(request);
            return;
        }
        // Posted before the caller could know: a request right after one that broke the connection fails with the
        // same status, as it would had it been flushed.
        boolean terminated = lifecycle.phase() == ConnectionLifecycle.Phase.DISCONNECTING && queuePair != null
                && queuePair.outcomes().isTerminated();
        request.completion().failed(terminated ? queuePair.outcomes().flushed() : new RdmaException(Status.CONNECTION_INVALID,
                "the connection to " + remoteAddress + " is no longer connected"));
    }

    /** A remote error broke the connection (the queue pair failed the request that met it): terminate. */
    void onTerminated() {
        disconnectReason = DisconnectReason.PROTOCOL_ERROR;
        beginDisconnect();
    }

    /**
     * The peer showed no life for the queue pair's whole retry budget (its oldest request failed IO_TIMEOUT): the
     * connection ends CONNECTION_RESET, the requests after it CANCELED, as soft's liveness deadline ends one.
     */
    void onPeerSilent() {
        disconnectReason = DisconnectReason.CONNECTION_RESET;
        beginDisconnect();
    }

    /**
     * A request failed locally or was flushed because the connection under it broke (siw, when the peer disconnects
     * during traffic; rxe, when its port goes down): the CM's DISCONNECTED or the device's event follows, and decides
     * the reason; without either, the connection is reset once the disconnect timeout passes.
     */
    void onConnectionLost(RdmaException symptom) {
        if (deadline != null) {
            return; // already waiting
        }
        LOG.debug("{}: connection lost ({}), waiting for the CM", this, symptom.getMessage());
        deadline = loop.poller().schedule(loop.device().config().disconnectTimeout(), () -> {
            deadline = null;
            if (lifecycle.isEstablished()) {
                if (peerRefusals.brokenNow()) { // the flushed requests' completions were drained by now
                    peerRefusals.onBroken(loop, remoteAddress, this, "and its requests flushed with no cause");
                }
                disconnectReason = DisconnectReason.CONNECTION_RESET;
                beginDisconnect();
            }
        });
    }

    // --- device failures ---------------------------------------------------------------------------------------

    /**
     * A fatal asynchronous event of the device: a port that went down ends the connections on it, a device failure
     * every connection, a QP or CQ error the connection whose QP or CQ it names.
     */
    void onDeviceEvent(AsyncEvent event) {
        boolean concerned = switch (event.type()) {
            case AsyncEvent.DEVICE_FATAL -> true;
            case AsyncEvent.PORT_ERR -> queuePair != null && port == event.port();
            case AsyncEvent.CQ_ERR -> queuePair != null && queuePair.reportsTo(event.element());
            default -> event.isQueuePairError() && queuePair != null && queuePair.handle() == event.element();
        };
        if (!concerned) {
            return;
        }
        RdmaException failure = VerbsErrors.deviceFailure(event, loop.device().adapterInfo().deviceName());
        if (event.isQueuePairError()) {
            loop.device().peerFaultLog().fault(remoteAddress, loop.poller().nanoTime(), loop.device().adapterInfo()
                    .deviceName() + ": " + event + " on connection " + this + ": " + event.consequence());
            if (lifecycle.isEstablished()) {
                peerRefusals.onQueuePairEvent(event, loop, remoteAddress, this);
            }
        }
        if (!event.isQueuePairError() || lifecycle.isEstablishing()) {
            endOnDeviceFailure(failure);
        } else if (lifecycle.isEstablished()) {
            onQueuePairError(failure);
        } // disconnecting: the disconnect under way is what broke the QP
    }

    /**
     * The QP reported a fatal error. siw raises these beside what the transport reports better (a Terminate's cause
     * in a failed completion, a broken stream in the CM's DISCONNECTED), sometimes before it: so the transport has
     * the disconnect timeout to explain the failure, and only if it does not does the event end the connection.
     */
    private void onQueuePairError(RdmaException failure) {
        if (deadline != null) {
            LOG.debug("{}: {}, while waiting for the CM already", this, failure.getMessage());
            return;
        }
        LOG.debug("{}: {}, waiting for the transport to report a cause", this, failure.getMessage());
        deadline = loop.poller().schedule(loop.device().config().disconnectTimeout(), () -> {
            deadline = null;
            if (lifecycle.isEstablished()) {
                endOnDeviceFailure(failure);
            }
        });
    }

    /**
     * This side's device failed under the connection: establishment fails with {@code failure}; an established
     * connection ends with DEVICE_ERROR (one already disconnecting, with its own reason) and its requests fail with
     * {@code failure}'s status.
     */
    private void endOnDeviceFailure(RdmaException failure) {
        if (lifecycle.isEstablishing()) {
            handshake.fail(failure);
        } else if (lifecycle.isUp()) {
            LOG.debug("{}: ends: {}", this, failure.getMessage());
            queuePair.outcomes().recordFailure(failure);
            closeConnection(lifecycle.isEstablished() ? DisconnectReason.DEVICE_ERROR : disconnectReason);
        }
    }

    // --- teardown ----------------------------------------------------------------------------------------------

    @Override
    public void disconnect() {
        if (!lifecycle.isEstablished()) {
            return;
        }
        disconnectReason = DisconnectReason.LOCAL_DISCONNECT;
        beginDisconnect();
    }

    private void beginDisconnect() {
        lifecycle.disconnecting();
        cmDisconnect();
        schedule(loop.device().config().disconnectTimeout(), () -> closeConnection(disconnectReason));
    }

    private void onDisconnectedEvent() {
        boolean brokenBeforeDisconnect = lifecycle.isEstablished() && peerRefusals.brokenNow();
        // Completions the transport made before the disconnect keep their own outcome: siw writes a Terminate's
        // cause to the CQ just before it drops the connection. (CM events are dispatched after the loop ran its
        // commands, so draining here runs none of them.)
        queuePair.drainCompletions();
        if (lifecycle.isEstablished()) {
            if (brokenBeforeDisconnect) {
                peerRefusals.onBroken(loop, remoteAddress, this, "when the peer disconnected");
            }
            cmDisconnect(); // answer the peer's disconnect; the QP moves to the error state and flushes
            closeConnection(DisconnectReason.PEER_DISCONNECTED);
        } else {
            closeConnection(disconnectReason);
        }
    }

    /** The QP broke before this side's establishment ended: a peer whose request was refused as soon as it could. */
    void onBrokenWhileEstablishing() {
        peerRefusals.onBroken(loop, remoteAddress, this, "before this side's establishment ended");
    }

    void onLoopClosed() {
        if (lifecycle.isUp()) {
            cmDisconnect();
            closeConnection(DisconnectReason.RUNTIME_CLOSED);
        } else if (lifecycle.isEstablishing()) {
            handshake.fail(new RdmaException(Status.CANCELED, "the runtime was closed"));
        }
    }

    /** Ends an established connection: its requests fail, its resources go, then the lifecycle's one report. */
    private void closeConnection(DisconnectReason reason) {
        if (!lifecycle.isUp() || closing) {
            return;
        }
        closing = true; // a callback below may close the runtime: the first reason stands
        lifecycle.disconnecting(); // requests posted from the callbacks below fail
        // The QP's completions still in the CQ are dropped once it is released: fail its requests here.
        queuePair.failOutstanding();
        release();
        lifecycle.ended(reason);
    }

    /** Releases the queue pair and the id, once; cancels the deadline. */
    void release() {
        cancelDeadline();
        if (released) {
            return;
        }
        released = true;
        if (queuePair != null) {
            queuePair.release(() -> loop.forget(id, idHandle));
        } else {
            loop.forget(id, idHandle);
        }
    }

    void cmDisconnect() {
        try {
            id.disconnect();
        } catch (IOException e) {
            loop.poller().recordError("rdma_disconnect", e);
        }
    }

    @Override
    public String toString() {
        String phase = lifecycle.isEstablishing() && handshake != null ? lifecycle + "/" + handshake.step()
                : lifecycle.toString();
        return "VerbsConnection[" + phase + " " + localAddress + " -> " + remoteAddress + "]";
    }
}
