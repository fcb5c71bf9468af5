package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
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
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One CM id and, once connected, its queue pair: the active connect (resolve address, resolve route, connect),
 * the passive request (accept or reject), the established connection's data path, and its disconnect. Confined to
 * the loop's poller thread except the accessors {@link IncomingRequest} documents as thread-safe.
 */
final class VerbsEndpoint implements ProviderConnection, IncomingRequest, PendingHandle, ConnectAttempt {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    private static final int RETRY_COUNT = 7;
    private static final int RNR_RETRY_INFINITE = 7;
    private static final int QUEUE_DEPTH = 128;
    private static final long RECEIVE_FLAG = 0x8000_0000L;
    private static final int WC_SUCCESS = 0;
    private static final int WC_LOC_LEN_ERR = 1;
    private static final int WC_LOC_QP_OP_ERR = 2;
    private static final int WC_LOC_PROT_ERR = 4;
    private static final int WC_WR_FLUSH_ERR = 5;
    private static final int WC_REM_INV_REQ_ERR = 9;
    private static final int WC_REM_ACCESS_ERR = 10;
    private static final int WC_REM_OP_ERR = 11;
    private static final int WC_RETRY_EXC_ERR = 12;
    private static final int WC_RNR_RETRY_EXC_ERR = 13;
    private static final int WC_WITH_INV = 8;
    private static final int IBV_WR_SEND_WITH_INV = 9;

    private enum State { RESOLVING_ADDRESS, RESOLVING_ROUTE, CONNECTING, ACCEPTED, REQUESTED, ACCEPTING, ESTABLISHED,
        DISCONNECTING, CLOSED }

    private final VerbsEventLoop loop;
    private final RdmaCmId id;
    private final long idHandle;
    private final boolean active;
    private State state;
    private Cancellable deadline;
    // active side
    private ConnectSpec spec;
    private ConnectEvents connectEvents;
    // passive side
    private ListenEvents listenEvents;
    private byte[] peerPrivateData;
    private ReadLimits peerLimits;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    // both, from establishment on
    private EstablishEvents establish;
    private ConnectionEvents connectionEvents;
    private ReadLimits effectiveLimits;
    private ConnectionData connectionData;
    private IbvQP qp;
    private long qpHandle;
    /** Two-phase connect on IB/RoCE: the QP is not the CM's, so the CM stops at CONNECT_RESPONSE (ABI doc §5.5). */
    private boolean detachedQp;
    private CompletionQueue completionQueue;
    private SVCPostSend readCall;
    private SVCPostSend writeCall;
    private SVCPostSend sendCall;
    private ByteBuffer receiveWr;
    private long receiveWrAddress;
    private int sequence;
    /** Posted requests, oldest first: an RC queue pair completes each queue in order. */
    private final ArrayDeque<WorkRequest> sendQueue = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> receiveQueue = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> waitingSends = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> waitingReceives = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> heldSilent = new ArrayDeque<>();
    private DisconnectReason disconnectReason;
    /** The remote error that ended the connection: requests flushed after it fail with its status, as on iWARP. */
    private RdmaException terminatedBy;

    private VerbsEndpoint(VerbsEventLoop loop, RdmaCmId id, boolean active, State state) {
        this.loop = loop;
        this.id = id;
        this.idHandle = ((NatObject) id).getObjId();
        this.active = active;
        this.state = state;
        loop.track(idHandle, this);
    }

    // --- active side -------------------------------------------------------------------------------------------

    static ConnectAttempt connect(VerbsEventLoop loop, ConnectSpec spec, ConnectionEvents connectionEvents,
                                  ConnectEvents events) {
        RdmaCmId id;
        try {
            id = loop.device().cm().createId(loop.ownChannel(), RdmaCm.RDMA_PS_TCP);
        } catch (IOException e) {
            events.onFailed(VerbsErrors.of(e, false, "create a CM id"));
            return error -> { };
        }
        VerbsEndpoint endpoint = new VerbsEndpoint(loop, id, true, State.RESOLVING_ADDRESS);
        endpoint.spec = spec;
        endpoint.connectEvents = events;
        endpoint.establish = events;
        endpoint.connectionEvents = connectionEvents;
        endpoint.remoteAddress = spec.destination();
        endpoint.startResolving();
        return endpoint;
    }

    private void startResolving() {
        boolean shared = spec.sharedAddress() != null;
        InetSocketAddress source = shared ? spec.sharedAddress().localAddress() : spec.localAddress();
        try {
            if (shared) {
                int rc = NativeVerbs.setReuseAddr(idHandle, 1);
                if (rc < 0) {
                    failEstablishment(VerbsErrors.of(-rc, false, "REUSEADDR"));
                    return;
                }
            }
            if (source != null) {
                id.bindAddr(source);
            }
        } catch (IOException e) {
            failEstablishment(VerbsErrors.of(e, VerbsErrors.ephemeralOnLocalAddress(source), "bind " + source));
            return;
        }
        try {
            id.resolveAddr(null, spec.destination(), RESOLVE_TIMEOUT_MS);
        } catch (IOException e) {
            failEstablishment(VerbsErrors.of(e, false, "resolve " + spec.destination()));
        }
    }

    @Override
    public void abort(RdmaException error) {
        if (state == State.ESTABLISHED || state == State.DISCONNECTING || state == State.CLOSED) {
            return;
        }
        failEstablishment(error);
    }

    // --- passive side ------------------------------------------------------------------------------------------

    static void onConnectRequest(VerbsEventLoop loop, VerbsListener listener, ListenEvents events, CmEvent event)
            throws IOException {
        RdmaCmId id = loop.device().wrapRequestId(event.id(), listener.channel());
        VerbsEndpoint endpoint = new VerbsEndpoint(loop, id, false, State.REQUESTED);
        endpoint.listenEvents = events;
        endpoint.peerPrivateData = event.privateData();
        endpoint.peerLimits = event.peerReadLimits();
        endpoint.localAddress = (InetSocketAddress) id.getSource();
        endpoint.remoteAddress = (InetSocketAddress) id.getDestination();
        LOG.debug("{}: CONNECT_REQUEST {}", endpoint, endpoint.peerLimits);
        Duration timeout = loop.device().config().handshakeTimeout();
        endpoint.deadline = loop.poller().schedule(timeout, () -> endpoint.withdraw(new RdmaException(
                Status.IO_TIMEOUT, "nobody answered the request from " + endpoint.remoteAddress + " within "
                + timeout)));
        events.onRequest(endpoint);
    }

    private void withdraw(RdmaException reason) {
        if (state != State.REQUESTED) {
            return;
        }
        NativeVerbs.reject(idHandle, 0, 0);
        state = State.CLOSED;
        release();
        listenEvents.onRequestWithdrawn(this, reason);
    }

    @Override
    public PollerContext poller() {
        return loop.poller();
    }

    @Override
    public byte[] privateData() {
        return peerPrivateData;
    }

    @Override
    public ReadLimits requestedReadLimits() {
        return peerLimits;
    }

    @Override
    public void accept(ReadLimits readLimits, byte[] privateData, ConnectionEvents events, EstablishEvents done) {
        LOG.debug("{}: accept", this);
        if (state != State.REQUESTED) {
            done.onFailed(notAnswerable());
            return;
        }
        cancelDeadline();
        this.connectionEvents = events;
        this.establish = done;
        AdapterInfo adapter = loop.device().adapterInfo();
        effectiveLimits = ReadLimitNegotiation.effective(readLimits, adapter, peerLimits);
        connectionData = new ConnectionData(effectiveLimits, peerPrivateData);
        state = State.ACCEPTING; // from here on, the outcome goes to done
        try {
            createQueuePair();
        } catch (IOException e) {
            NativeVerbs.reject(idHandle, 0, 0);
            RdmaException failure = acceptFailure(VerbsErrors.errnoOf(e), "create a queue pair");
            failure.addSuppressed(e);
            failEstablishment(failure);
            return;
        }
        ByteBuffer data = nativeCopy(privateData);
        int rc = NativeVerbs.accept(idHandle, effectiveLimits.inbound(),
                effectiveLimits.outbound(), RNR_RETRY_INFINITE, address(data), privateData.length, 0);
        if (rc < 0) {
            failEstablishment(acceptFailure(-rc, "accept"));
            return;
        }
        Duration timeout = loop.device().config().handshakeTimeout();
        deadline = loop.poller().schedule(timeout, () -> failEstablishment(new RdmaException(Status.IO_TIMEOUT,
                remoteAddress + " did not complete the connection within " + timeout)));
    }

    /** EINVAL on a request id the CM handed us means the CM dropped it: the peer abandoned the request. */
    private RdmaException acceptFailure(int errno, String what) {
        return errno == VerbsErrors.EINVAL
                ? new RdmaException(Status.CONNECTION_ABORTED, remoteAddress + " abandoned its request (" + what
                        + ": errno " + errno + ")")
                : VerbsErrors.of(errno, false, what);
    }

    @Override
    public void reject(byte[] privateData, Consumer<RdmaException> done) {
        if (state != State.REQUESTED) {
            done.accept(notAnswerable());
            return;
        }
        cancelDeadline();
        ByteBuffer data = nativeCopy(privateData);
        int rc = NativeVerbs.reject(idHandle, address(data), privateData.length);
        state = State.CLOSED;
        release();
        done.accept(rc < 0 ? VerbsErrors.of(-rc, false, "reject") : null);
    }

    private RdmaException notAnswerable() {
        return new RdmaException(Status.INVALID_DEVICE_STATE, "the request from " + remoteAddress
                + " was already answered or withdrawn");
    }

    // --- CM events ---------------------------------------------------------------------------------------------

    void onCmEvent(CmEvent event) throws IOException {
        LOG.debug("{}: {}", this, event);
        switch (event.type()) {
            case CmEvent.ADDR_RESOLVED -> onAddressResolved();
            case CmEvent.ROUTE_RESOLVED -> onRouteResolved();
            case CmEvent.ADDR_ERROR, CmEvent.ROUTE_ERROR -> failEstablishment(VerbsErrors.resolution(
                    event.status(), event.type() == CmEvent.ROUTE_ERROR, spec.destination()));
            case CmEvent.REJECTED -> onRejected(event);
            case CmEvent.UNREACHABLE, CmEvent.CONNECT_ERROR -> {
                if (active && state == State.CONNECTING) {
                    failEstablishment(VerbsErrors.connectFailed(event.type(), event.status(), remoteAddress));
                } else {
                    failEstablishment(new RdmaException(Status.CONNECTION_ABORTED, remoteAddress
                            + " abandoned the connection (" + event + ")"));
                }
            }
            case CmEvent.ESTABLISHED -> onEstablished(event);
            case CmEvent.CONNECT_RESPONSE -> onConnectResponse(event);
            case CmEvent.DISCONNECTED -> onDisconnectedEvent();
            case CmEvent.DEVICE_REMOVAL -> {
                failEstablishment(new RdmaException(Status.DEVICE_REMOVED, "the RDMA device went away"));
                closeConnection(DisconnectReason.CONNECTION_RESET);
            }
            case CmEvent.TIMEWAIT_EXIT, CmEvent.ADDR_CHANGE -> { } // informational: the connection is unaffected
            default -> loop.poller().recordError("verbs CM", new IllegalStateException("unexpected " + event
                    + " in state " + state)); // multicast events: RC ids never join groups
        }
    }

    private void onAddressResolved() throws IOException {
        if (state != State.RESOLVING_ADDRESS) {
            return;
        }
        if (((NatObject) id.getVerbs()).getObjId() != loop.device().contextHandle()) {
            failEstablishment(new RdmaException(Status.INVALID_ADDRESS, spec.destination()
                    + " is not reached through " + loop.device().adapterInfo().deviceName()));
            return;
        }
        state = State.RESOLVING_ROUTE;
        id.resolveRoute(RESOLVE_TIMEOUT_MS);
    }

    private void onRouteResolved() {
        if (state != State.RESOLVING_ROUTE) {
            return;
        }
        detachedQp = spec.twoPhase() && loop.device().adapterInfo().passiveAcceptWaitsForCompleteConnect();
        int qpNum = 0;
        try {
            createQueuePair();
            localAddress = (InetSocketAddress) id.getSource();
            if (detachedQp) {
                int rc = NativeVerbs.modifyQpFromCm(idHandle, qpHandle, IbvQP.IBV_QPS_INIT, 255);
                if (rc < 0) {
                    failEstablishment(VerbsErrors.of(-rc, false, "move the queue pair to INIT"));
                    return;
                }
                qpNum = qp.getQp_num();
            }
        } catch (IOException e) {
            failEstablishment(VerbsErrors.of(e, false, "create a queue pair"));
            return;
        }
        ReadLimits offer = ReadLimitNegotiation.offer(spec.readLimits(),
                loop.device().adapterInfo());
        ByteBuffer data = nativeCopy(spec.privateData());
        int rc = NativeVerbs.connect(idHandle, offer.inbound(), offer.outbound(),
                RETRY_COUNT, RNR_RETRY_INFINITE, address(data), spec.privateData().length, qpNum);
        if (rc < 0) {
            failEstablishment(VerbsErrors.of(-rc, false, "connect"));
            return;
        }
        state = State.CONNECTING;
    }

    private void onRejected(CmEvent event) {
        if (active && state == State.CONNECTING) {
            byte[] data = event.privateData();
            RdmaException refused = VerbsErrors.rejected(event.status(), remoteAddress);
            failEstablishment(new RdmaException(refused.status(), refused.getMessage(), null, data));
        } else {
            failEstablishment(new RdmaException(Status.CONNECTION_ABORTED, remoteAddress
                    + " rejected the connection after our accept"));
        }
    }

    private void onEstablished(CmEvent event) {
        if (active && state == State.CONNECTING) {
            AdapterInfo adapter = loop.device().adapterInfo();
            ReadLimits peer = adapter.transport() == AdapterInfo.Transport.IWARP
                    ? event.peerReadLimitsAsSent() : event.peerReadLimits();
            effectiveLimits = ReadLimitNegotiation.effective(spec.readLimits(), adapter, peer);
            connectionData = new ConnectionData(effectiveLimits, event.privateData());
            if (spec.twoPhase()) {
                // The CM established the QP already (it is attached); the second phase is local (ABI doc §5.5).
                state = State.ACCEPTED;
                connectEvents.onAccepted(this, connectionData);
                return;
            }
            becomeEstablished();
        } else if (!active && state == State.ACCEPTING) {
            cancelDeadline();
            becomeEstablished();
        }
    }

    /** IB/RoCE two-phase connect: the peer accepted; our QP waits in INIT until {@link #complete()}. */
    private void onConnectResponse(CmEvent event) {
        if (!active || state != State.CONNECTING) {
            return;
        }
        effectiveLimits = ReadLimitNegotiation.effective(spec.readLimits(), loop.device().adapterInfo(),
                event.peerReadLimits());
        connectionData = new ConnectionData(effectiveLimits, event.privateData());
        state = State.ACCEPTED;
        connectEvents.onAccepted(this, connectionData);
    }

    @Override
    public void complete() {
        if (state != State.ACCEPTED) {
            return;
        }
        if (detachedQp) {
            int rc = NativeVerbs.modifyQpFromCm(idHandle, qpHandle, IbvQP.IBV_QPS_RTR, effectiveLimits.inbound());
            if (rc >= 0) {
                rc = NativeVerbs.modifyQpFromCm(idHandle, qpHandle, IbvQP.IBV_QPS_RTS, effectiveLimits.outbound());
            }
            if (rc >= 0) {
                rc = NativeVerbs.establish(idHandle);
            }
            if (rc < 0) {
                failEstablishment(new RdmaException(Status.CONNECTION_ABORTED, "completing the connection to "
                        + remoteAddress + " failed: errno " + -rc));
                return;
            }
        }
        becomeEstablished();
    }

    @Override
    public void expire(RdmaException timeout) {
        reject(); // not yet distinguishable on the wire: the peer sees CONNECTION_ABORTED
    }

    @Override
    public void reject() {
        if (state == State.ACCEPTED) {
            failEstablishment(new RdmaException(Status.CANCELED, "this side rejected the accepted connection"));
        }
    }

    private void becomeEstablished() {
        state = State.ESTABLISHED;
        if (LOG.isDebugEnabled()) {
            ByteBuffer info = ByteBuffer.allocateDirect(NativeVerbs.QP_INFO_SIZE).order(ByteOrder.nativeOrder());
            int rc = NativeVerbs.queryQp(qpHandle, address(info));
            LOG.debug("{}: established, {}; QP outbound reads {}, inbound reads {} (query {})", this,
                    effectiveLimits, Byte.toUnsignedInt(info.get(28)), Byte.toUnsignedInt(info.get(29)), rc);
        }
        try {
            localAddress = (InetSocketAddress) id.getSource();
            remoteAddress = (InetSocketAddress) id.getDestination();
        } catch (IOException e) {
            loop.poller().recordError("verbs addresses", e);
        }
        establish.onEstablished(this, connectionData);
    }

    private void failEstablishment(RdmaException error) {
        if (state == State.ESTABLISHED || state == State.DISCONNECTING || state == State.CLOSED) {
            return;
        }
        LOG.debug("{}: failed: {}", this, error.getMessage());
        boolean requested = state == State.REQUESTED;
        if (state == State.ACCEPTED) {
            // The peer accepted and waits: a reject (IB/RoCE, detached QP) or a disconnect aborts its accept.
            if (detachedQp) {
                NativeVerbs.reject(idHandle, 0, 0);
            } else {
                cmDisconnect();
            }
        }
        state = State.CLOSED;
        release();
        if (requested) {
            listenEvents.onRequestWithdrawn(this, error);
        } else if (establish != null) {
            establish.onFailed(error);
        }
    }

    // --- queue pair and data path ------------------------------------------------------------------------------

    private void createQueuePair() throws IOException {
        completionQueue = loop.newCompletionQueue(2 * QUEUE_DEPTH); // room for everything the QP can hold
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(QUEUE_DEPTH);
        attr.cap().setMax_recv_wr(QUEUE_DEPTH);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(completionQueue.cq());
        attr.setRecv_cq(completionQueue.cq());
        if (detachedQp) {
            long cq = completionQueue.handle();
            long handle = NativeVerbs.createQpDetached(((NatObject) loop.device().pd()).getObjId(), cq, cq,
                    QUEUE_DEPTH, QUEUE_DEPTH, 1, 1, 0, 0);
            if (handle < 0) {
                throw new IOException("ibv_create_qp failed (errno " + -handle + ")");
            }
            qp = loop.device().wrapQp(handle);
        } else {
            qp = id.createQP(loop.device().pd(), attr);
        }
        qpHandle = ((NatObject) qp).getObjId();
        loop.addConnection(this);
        readCall = prepare(IbvSendWR.IBV_WR_RDMA_READ);
        writeCall = prepare(IbvSendWR.IBV_WR_RDMA_WRITE);
        sendCall = prepare(IbvSendWR.IBV_WR_SEND);
        receiveWr = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        receiveWrAddress = MemoryUtils.getAddress(receiveWr);
    }

    /** A one-request stateful post of {@code opcode}, patched in place for every request of that kind. */
    private SVCPostSend prepare(int opcode) throws IOException {
        return qp.postSend(List.of(sendWr(opcode, 0)), null);
    }

    private static IbvSendWR sendWr(int opcode, int invalidateToken) {
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(opcode);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setImm_data(invalidateToken);
        java.util.LinkedList<IbvSge> sges = new java.util.LinkedList<>();
        sges.add(new IbvSge());
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        return wr;
    }

    /** Handles what this connection's CQ holds; returns how many completions there were. */
    int drainCompletions() {
        int total = 0;
        try {
            int n;
            do {
                n = completionQueue.poll();
                if (n > 0) {
                    total += loop.beforeDispatch();
                }
                for (int i = 0; i < n && completionQueue != null; i++) {
                    IbvWC completion = completionQueue.completion(i);
                    onCompletion(completion, (int) completion.getWr_id());
                    total++;
                }
            } while (n == CompletionQueue.POLL_BATCH && completionQueue != null); // fewer: the CQ was emptied
        } catch (IOException e) {
            loop.poller().recordError("poll completion queue", e);
        }
        return total;
    }

    /** Whether {@code cqHandle} is this connection's CQ (it has one while its loop polls it). */
    boolean reportsTo(long cqHandle) {
        return completionQueue != null && completionQueue.handle() == cqHandle;
    }

    /** Arms the CQ before the loop sleeps; true if completions are already waiting. */
    boolean armCompletions() throws IOException {
        return completionQueue.arm();
    }

    void onCompletionEvent() throws IOException {
        completionQueue.onEvent();
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
            // Posted before the caller could know: a request right after one that broke the connection fails
            // with the same status, as it would had it been flushed.
            request.completion().failed(terminatedBy != null && state == State.DISCONNECTING ? flushed()
                    : new RdmaException(Status.CONNECTION_INVALID, "the connection to " + remoteAddress
                            + " is no longer connected"));
            return;
        }
        if (request.kind() == WorkRequest.Kind.RECEIVE) {
            if (receiveQueue.size() >= QUEUE_DEPTH) {
                waitingReceives.add(request);
            } else {
                postReceive(request);
            }
        } else if (sendQueue.size() >= QUEUE_DEPTH) {
            waitingSends.add(request);
        } else {
            postSend(request);
        }
    }

    private void postSend(WorkRequest request) {
        VerbsRegion local = (VerbsRegion) request.local();
        long wrId = sequence++ & 0x7FFF_FFFFL;
        int flags = IbvSendWR.IBV_SEND_SIGNALED | (request.has(WorkRequest.READ_FENCE) ? IbvSendWR.IBV_SEND_FENCE : 0);
        try {
            SVCPostSend call = switch (request.kind()) {
                case READ -> readCall;
                case WRITE -> writeCall;
                case SEND -> sendCall;
                default -> qp.postSend(List.of(sendWr(IBV_WR_SEND_WITH_INV, request.remoteToken())), null);
            };
            SVCPostSend.SendWRMod wr = call.getWrMod(0);
            wr.setWr_id(wrId);
            wr.setSend_flags(flags);
            SVCPostSend.SgeMod sge = wr.getSgeMod(0);
            sge.setAddr(local.address() + request.localOffset());
            sge.setLength(request.length());
            sge.setLkey(local.localKey());
            wr.getRdmaMod().setRemote_addr(request.remoteAddress());
            wr.getRdmaMod().setRkey(request.remoteToken());
            call.execute();
            if (request.kind() == WorkRequest.Kind.SEND_INVALIDATE) {
                call.free();
            }
        } catch (IOException e) {
            request.completion().failed(postFailure(e));
            return;
        }
        sendQueue.add(request);
    }

    private void postReceive(WorkRequest request) {
        VerbsRegion local = (VerbsRegion) request.local();
        long wrId = RECEIVE_FLAG | (sequence++ & 0x7FFF_FFFFL);
        receiveWr.putLong(0, wrId);
        receiveWr.putLong(8, 0);
        receiveWr.putLong(16, receiveWrAddress + 32);
        receiveWr.putInt(24, 1);
        receiveWr.putLong(32, local.address() + request.localOffset());
        receiveWr.putInt(40, request.length());
        receiveWr.putInt(44, local.localKey());
        int rc = NativeVerbs.postRecv(qpHandle, receiveWrAddress, receiveWrAddress + 48);
        if (rc < 0) {
            request.completion().failed(new RdmaException(rc == -VerbsErrors.ENOMEM
                    ? Status.INSUFFICIENT_RESOURCES : Status.INVALID_PARAMETER, "ibv_post_recv failed: errno " + -rc));
            return;
        }
        receiveQueue.add(request);
    }

    private static RdmaException postFailure(IOException e) {
        int errno = VerbsErrors.errnoOf(e);
        return new RdmaException(errno == VerbsErrors.ENOMEM ? Status.INSUFFICIENT_RESOURCES
                : Status.INVALID_PARAMETER, "ibv_post_send failed: " + e.getMessage(), e);
    }

    void onCompletion(IbvWC completion, int lowWrId) {
        boolean receive = (lowWrId & RECEIVE_FLAG) != 0;
        WorkRequest request = (receive ? receiveQueue : sendQueue).poll();
        if (request == null) {
            return;
        }
        int status = completion.getStatus();
        if (status == WC_SUCCESS) {
            if (receive) {
                int bytes = completion.getByte_len();
                if ((completion.getWc_flags() & WC_WITH_INV) != 0) {
                    request.completion().completedWithInvalidate(bytes, completion.getImm_data());
                } else {
                    request.completion().completed(bytes);
                }
                refill(waitingReceives, receiveQueue);
            } else {
                if (request.has(WorkRequest.SILENT_SUCCESS)) {
                    heldSilent.add(request);
                } else {
                    releaseSilent();
                    request.completion().completed(request.length());
                }
                refill(waitingSends, sendQueue);
            }
            return;
        }
        if (!receive) {
            releaseSilent();
        }
        if (status == WC_WR_FLUSH_ERR || state != State.ESTABLISHED) {
            request.completion().failed(flushed());
            return;
        }
        if (status == WC_LOC_QP_OP_ERR && !receive) {
            connectionLost(completionError(status, false, completion.getVendor_err()));
            request.completion().failed(flushed());
            return;
        }
        RdmaException error = completionError(status, receive, completion.getVendor_err());
        request.completion().failed(error);
        terminatedBy = error;
        disconnectReason = DisconnectReason.PROTOCOL_ERROR;
        beginDisconnect();
    }

    /**
     * A send-queue request failed locally because the connection under it broke (siw, when the peer disconnects
     * during traffic): the CM's DISCONNECTED follows, and decides the reason; without it, the connection is reset
     * once the disconnect timeout passes.
     */
    private void connectionLost(RdmaException symptom) {
        if (deadline != null) {
            return; // already waiting
        }
        LOG.debug("{}: connection lost ({}), waiting for the CM", this, symptom.getMessage());
        deadline = loop.poller().schedule(loop.device().config().disconnectTimeout(), () -> {
            deadline = null;
            if (state == State.ESTABLISHED) {
                disconnectReason = DisconnectReason.CONNECTION_RESET;
                beginDisconnect();
            }
        });
    }

    /** Why a request that never ran fails: the error that terminated the connection, else its closing. */
    private RdmaException flushed() {
        if (terminatedBy != null) {
            return new RdmaException(terminatedBy.status(), "not executed: an earlier request on the connection to "
                    + remoteAddress + " failed (" + terminatedBy.getMessage() + ")");
        }
        return new RdmaException(Status.CANCELED, "the connection to " + remoteAddress + " ended");
    }

    private void refill(ArrayDeque<WorkRequest> waiting, ArrayDeque<WorkRequest> queue) {
        while (!waiting.isEmpty() && queue.size() < QUEUE_DEPTH && state == State.ESTABLISHED) {
            WorkRequest next = waiting.poll();
            if (next.kind() == WorkRequest.Kind.RECEIVE) {
                postReceive(next);
            } else {
                postSend(next);
            }
        }
    }

    private void releaseSilent() {
        WorkRequest silent;
        while ((silent = heldSilent.poll()) != null) {
            silent.completion().completed(silent.length());
        }
    }

    private RdmaException completionError(int status, boolean receive, int vendorError) {
        // rxe reports a message longer than the posted receive as a local QP operation error on the receive.
        Status mapped = receive && status == WC_LOC_QP_OP_ERR ? Status.BUFFER_OVERFLOW : switch (status) {
            case WC_LOC_LEN_ERR -> Status.BUFFER_OVERFLOW;
            case WC_LOC_PROT_ERR, WC_REM_ACCESS_ERR -> Status.ACCESS_VIOLATION;
            case WC_REM_INV_REQ_ERR, WC_REM_OP_ERR -> Status.REMOTE_RESOURCES;
            case WC_RETRY_EXC_ERR, WC_RNR_RETRY_EXC_ERR -> Status.IO_TIMEOUT;
            default -> Status.INVALID_NETWORK_RESPONSE;
        };
        String name = status >= 0 && status < IbvWC.IbvWcStatus.values().length
                ? IbvWC.IbvWcStatus.values()[status].name() : "status " + status;
        return new RdmaException(mapped, "work completion " + name + " (vendor error " + vendorError + ")");
    }

    // --- disconnect and teardown -------------------------------------------------------------------------------

    @Override
    public void disconnect() {
        if (state != State.ESTABLISHED) {
            return;
        }
        disconnectReason = DisconnectReason.LOCAL_DISCONNECT;
        beginDisconnect();
    }

    private void beginDisconnect() {
        state = State.DISCONNECTING;
        cmDisconnect();
        Duration timeout = loop.device().config().disconnectTimeout();
        deadline = loop.poller().schedule(timeout, () -> closeConnection(disconnectReason));
    }

    private void onDisconnectedEvent() {
        if (state == State.ESTABLISHED) {
            cmDisconnect(); // answer the peer's disconnect; the QP moves to the error state and flushes
            closeConnection(DisconnectReason.PEER_DISCONNECTED);
        } else if (state == State.DISCONNECTING) {
            closeConnection(disconnectReason);
        } else if (state == State.ACCEPTED || state == State.ACCEPTING || state == State.CONNECTING) {
            failEstablishment(new RdmaException(Status.CONNECTION_ABORTED, remoteAddress
                    + " disconnected before the connection was complete"));
        }
    }

    void onLoopClosed() {
        if (state == State.ESTABLISHED || state == State.DISCONNECTING) {
            cmDisconnect();
            closeConnection(DisconnectReason.RUNTIME_CLOSED);
        } else {
            failEstablishment(new RdmaException(Status.CANCELED, "the runtime was closed"));
        }
    }

    private void closeConnection(DisconnectReason reason) {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        // Flushed requests still in the CQ are dropped by the loop once the slot is released: fail them here.
        RdmaException canceled = flushed();
        releaseSilent();
        failAll(sendQueue, canceled);
        failAll(receiveQueue, canceled);
        failAll(waitingSends, canceled);
        failAll(waitingReceives, canceled);
        release();
        connectionEvents.onDisconnected(reason);
    }

    private static void failAll(ArrayDeque<WorkRequest> queue, RdmaException error) {
        WorkRequest next;
        while ((next = queue.poll()) != null) {
            next.completion().failed(error);
        }
    }

    private void release() {
        cancelDeadline();
        if (qp != null) {
            readCall.free();
            writeCall.free();
            sendCall.free();
            if (detachedQp) {
                NativeVerbs.destroyQpDetached(qpHandle); // not the CM's: destroying the id leaves it alone
            }
        }
        loop.forget(id, idHandle); // destroys the CM's QP with the id
        if (completionQueue != null) {
            loop.removeConnection(this);
            try {
                completionQueue.destroy(); // after its QP
            } catch (IOException e) {
                loop.poller().recordError("destroy completion queue", e);
            }
            completionQueue = null;
        }
    }

    private void cmDisconnect() {
        try {
            id.disconnect();
        } catch (IOException e) {
            loop.poller().recordError("rdma_disconnect", e);
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel();
            deadline = null;
        }
    }

    private static ByteBuffer nativeCopy(byte[] data) {
        ByteBuffer copy = ByteBuffer.allocateDirect(Math.max(1, data.length));
        copy.put(data).flip();
        return copy;
    }

    private static long address(ByteBuffer buffer) {
        return MemoryUtils.getAddress(buffer);
    }

    @Override
    public String toString() {
        return "VerbsEndpoint[" + state + " " + localAddress + " -> " + remoteAddress + "]";
    }
}
