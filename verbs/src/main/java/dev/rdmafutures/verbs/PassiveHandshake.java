package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.providerkit.ConnectionLifecycle;
import dev.rdmafutures.spi.EstablishEvents;
import dev.rdmafutures.spi.IncomingRequest;
import dev.rdmafutures.spi.ListenEvents;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.providerkit.ReadLimitNegotiation;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The passive side's handshake: a peer's CONNECT_REQUEST, offered to the listener as an {@link IncomingRequest},
 * then accepted (queue pair, {@code rdma_accept}, and ESTABLISHED within the handshake timeout), rejected with
 * private data, or withdrawn when nobody answers in time. The accessors are thread-safe; the rest runs on the
 * poller thread.
 */
final class PassiveHandshake implements Handshake, IncomingRequest {
    private static final Logger LOG = LoggerFactory.getLogger(PassiveHandshake.class);
    private static final int RNR_RETRY_INFINITE = 7;

    private final VerbsConnection connection;
    private final ConnectionLifecycle lifecycle;
    private final ListenEvents listenEvents;
    private final byte[] peerPrivateData;
    private final ReadLimits peerLimits;
    private Step step = Step.REQUESTED;
    private ConnectionData connectionData;

    private PassiveHandshake(VerbsConnection connection, ListenEvents listenEvents, CmEvent request) {
        this.connection = connection;
        this.lifecycle = connection.lifecycle();
        this.listenEvents = listenEvents;
        this.peerPrivateData = request.privateData();
        this.peerLimits = request.peerReadLimits();
        connection.establishedBy(this);
    }

    /**
     * A CONNECT_REQUEST of {@code listener}'s, whose id reports to {@code channel} (the listener's, or {@code loop}'s
     * own when another loop moved it there): offers it to {@code events}, withdrawn if unanswered.
     */
    static void onConnectRequest(VerbsEventLoop loop, VerbsListener listener, ListenEvents events, CmEvent event,
                                 RdmaEventChannel channel) throws IOException {
        RdmaCmId id = loop.device().wrapRequestId(event.id(), channel);
        // Nobody listens to the lifecycle until the request is accepted: a withdrawal goes to the listener.
        VerbsConnection connection = new VerbsConnection(loop, id, new ConnectionLifecycle());
        connection.addresses((InetSocketAddress) id.getSource(), (InetSocketAddress) id.getDestination());
        PassiveHandshake request = new PassiveHandshake(connection, events, event);
        LOG.debug("{}: CONNECT_REQUEST {}", connection, request.peerLimits);
        Duration timeout = loop.device().config().handshakeTimeout();
        connection.schedule(timeout, () -> request.withdraw(new RdmaException(Status.IO_TIMEOUT,
                "nobody answered the request from " + request.remoteAddress() + " within " + timeout)));
        events.onRequest(request);
    }

    @Override
    public Step step() {
        return step;
    }

    private boolean isRequested() {
        return step == Step.REQUESTED && lifecycle.isEstablishing();
    }

    private void withdraw(RdmaException reason) {
        if (!isRequested()) {
            return;
        }
        connection.reject(new byte[0]);
        fail(reason);
    }

    @Override
    public PollerContext poller() {
        return connection.loop().poller();
    }

    @Override
    public InetSocketAddress localAddress() {
        return connection.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return connection.remoteAddress();
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
    public void accept(ReadLimits readLimits, QueueDepths queueDepths, ProviderDomain domain,
                       ProviderSharedReceiveQueue sharedReceiveQueue, byte[] privateData, ConnectionEvents events,
                       EstablishEvents done) {
        LOG.debug("{}: accept", connection);
        if (!isRequested()) {
            done.onFailed(notAnswerable());
            return;
        }
        connection.cancelDeadline();
        lifecycle.report(done, events); // from here on, the outcome goes to done
        ReadLimits effective = ReadLimitNegotiation.effective(readLimits,
                connection.loop().device().adapterInfo(), peerLimits);
        connectionData = new ConnectionData(effective, peerPrivateData);
        step = Step.ACCEPTING;
        try {
            connection.createQueuePair(false, queueDepths, domain, sharedReceiveQueue, events);
        } catch (IOException e) {
            connection.reject(new byte[0]);
            RdmaException failure = acceptFailure(VerbsErrors.errnoOf(e), "create a queue pair");
            failure.addSuppressed(e);
            fail(failure);
            return;
        } catch (RdmaException e) {
            connection.reject(new byte[0]);
            fail(e);
            return;
        }
        if (sharedReceiveQueue != null) {
            // Receives posted on this poller wait for the cycle's flush, and the accept answers now: the peer may
            // send the moment it has the answer, and on iWARP a Send that finds no receive ends the connection.
            ((VerbsSharedReceiveQueue) sharedReceiveQueue).postWaiting();
        }
        ByteBuffer data = VerbsConnection.direct(privateData);
        connection.applyAckTimeout();
        int rc = NativeVerbs.accept(connection.idHandle(), effective.inbound(), effective.outbound(),
                RNR_RETRY_INFINITE, MemoryUtils.getAddress(data), privateData.length, 0);
        if (rc < 0) {
            fail(acceptFailure(-rc, "accept"));
            return;
        }
        // rdma_accept moved the QP to RTS with the CM's RNR timer, then answered: only a Send that races this call
        // and finds no receive either meets the CM's timer.
        connection.queuePair().shortenRnrTimer();
        Duration timeout = connection.loop().device().config().handshakeTimeout();
        connection.schedule(timeout, () -> fail(new RdmaException(Status.IO_TIMEOUT, remoteAddress()
                + " did not complete the connection within " + timeout)));
    }

    /** EINVAL on a request id the CM handed us means the CM dropped it: the peer abandoned the request. */
    private RdmaException acceptFailure(int errno, String what) {
        return errno == VerbsErrors.EINVAL
                ? new RdmaException(Status.CONNECTION_ABORTED, remoteAddress() + " abandoned its request (" + what
                        + ": errno " + errno + ")")
                : VerbsErrors.of(errno, false, what);
    }

    @Override
    public void reject(byte[] privateData, Consumer<RdmaException> done) {
        if (!isRequested()) {
            done.accept(notAnswerable());
            return;
        }
        int rc = connection.reject(privateData);
        connection.release();
        lifecycle.close();
        done.accept(rc < 0 ? VerbsErrors.of(-rc, false, "reject") : null);
    }

    private RdmaException notAnswerable() {
        return new RdmaException(Status.INVALID_DEVICE_STATE, "the request from " + remoteAddress()
                + " was already answered or withdrawn");
    }

    @Override
    public void onCmEvent(CmEvent event) {
        switch (event.type()) {
            case CmEvent.ESTABLISHED -> {
                if (step == Step.ACCEPTING) {
                    connection.cancelDeadline();
                    connection.becomeEstablished(connectionData);
                }
            }
            case CmEvent.REJECTED -> fail(VerbsErrors.rejectedAfterAccept(event.privateData(), remoteAddress()));
            case CmEvent.UNREACHABLE, CmEvent.CONNECT_ERROR -> fail(new RdmaException(Status.CONNECTION_ABORTED,
                    remoteAddress() + " abandoned the connection (" + event + ")"));
            case CmEvent.DISCONNECTED -> {
                if (step == Step.ACCEPTING) {
                    fail(new RdmaException(Status.CONNECTION_ABORTED, remoteAddress()
                            + " disconnected before the connection was complete"));
                }
            }
            default -> { }
        }
    }

    @Override
    public void fail(RdmaException error) {
        if (!lifecycle.isEstablishing()) {
            return;
        }
        LOG.debug("{}: failed: {}", connection, error.getMessage());
        boolean requested = step == Step.REQUESTED;
        connection.release();
        lifecycle.failed(error); // reported once accepted; before, nobody listens to it
        if (requested) {
            listenEvents.onRequestWithdrawn(this, error);
        }
    }
}
