package dev.rdmafutures.verbs;

import dev.rdmafutures.AdapterInfo;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Whether the device refused something the peer of one connection sent, for the runtime's {@code PeerFaultPolicy}.
 * On InfiniBand and RoCE the responder that refuses a peer's request (a token its domain does not hold, an access
 * out of bounds or without the right, a malformed request) NAKs it and puts its own QP in the error state. Adapters
 * raise {@code IBV_EVENT_QP_ACCESS_ERR} or {@code IBV_EVENT_QP_REQ_ERR} for it too; rxe raises nothing, but a peer
 * that merely disconnects leaves the QP able to send, so the QP's state when the peer's DISCONNECTED arrives (or when
 * flushed requests found no cause within the disconnect timeout) tells. iWARP devices end the stream after a refusal
 * as after a disconnect, and siw reports no state that tells: there nothing is reported. Poller thread only.
 */
final class PeerRefusals {
    /** A refusal within this long after this side retired a token of the domain may be a late peer, not a guess. */
    static final long RETIREMENT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final VerbsQueuePair queuePair;
    private final boolean reports;
    /** When the QP was created ({@link System#nanoTime()}). */
    private final long createdNanos = System.nanoTime();
    /** Whether the QP broke for a cause this side knows: a fatal QP event. */
    private boolean brokenHere;
    private boolean reported;

    PeerRefusals(VerbsQueuePair queuePair, AdapterInfo.Transport transport) {
        this.queuePair = queuePair;
        this.reports = transport != AdapterInfo.Transport.IWARP;
    }

    /**
     * The device reported an error of the QP: an access or invalid-request error is a refusal of the peer's request
     * on InfiniBand and RoCE, reported at once unless this side saw a cause of its own; any other (a fatal QP error)
     * is a cause on this side.
     */
    void onQueuePairEvent(AsyncEvent event, VerbsEventLoop loop, InetSocketAddress peer, VerbsConnection connection) {
        if (reports && (event.type() == AsyncEvent.QP_ACCESS_ERR || event.type() == AsyncEvent.QP_REQ_ERR)) {
            if (!brokenHere && queuePair.outcomes().onlyFlushed()) {
                report(loop, peer, connection, "the device reported " + event);
            }
        } else {
            brokenHere = true;
        }
    }

    /** Whether the QP is in the error state now, where that tells (not on iWARP); before any drain of its CQ. */
    boolean brokenNow() {
        return reports && queuePair.inErrorState();
    }

    /**
     * The QP broke without this side disconnecting (found by {@link #brokenNow()} before the CQ was drained): a
     * refusal of the peer's request, reported unless this side saw a cause of its own (a request that failed other
     * than flushed, a fatal QP event, a local failure).
     */
    void onBroken(VerbsEventLoop loop, InetSocketAddress peer, VerbsConnection connection, String when) {
        if (!brokenHere && queuePair.outcomes().onlyFlushed()) {
            report(loop, peer, connection, "its QP was in the error state " + when);
        }
    }

    /**
     * Logs the refusal (rate-limited per peer) and counts it against {@code peer}, once per connection, unless the
     * domain retired a token since the QP was created or in the {@link #RETIREMENT_GRACE_NANOS} before (verbs cannot
     * tell which token the peer named).
     */
    private void report(VerbsEventLoop loop, InetSocketAddress peer, VerbsConnection connection, String evidence) {
        if (reported || peer == null) {
            return;
        }
        reported = true;
        boolean excused = queuePair.tokenRetirements().anySince(createdNanos - RETIREMENT_GRACE_NANOS);
        loop.device().peerFaultLog().fault(peer, loop.poller().nanoTime(), loop.device().adapterInfo().deviceName()
                + " refused a request of the peer of connection " + connection + " (" + evidence + ")"
                + (excused ? "; a token of its domain was retired here meanwhile, so it is not counted against the "
                + "peer" : ""));
        if (!excused) {
            loop.poller().peerFault(peer);
        }
    }
}
