package dev.rdmafutures;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * An incoming connection request (NDK's connect event), answered once with {@link #accept()} (NdkAcceptEx) or
 * {@link #reject(byte[])} (NdkReject). A second answer fails with {@link Status#INVALID_DEVICE_STATE}.
 */
public interface ConnectionRequest {
    /** The connecting peer's address. */
    InetSocketAddress remoteAddress();

    /** The local address the request came in on. */
    InetSocketAddress localAddress();

    /** The private data the peer sent, a fresh copy. */
    byte[] privateData();

    /** The read limits the peer asked for (its inbound and outbound), before negotiation. */
    ReadLimits requestedReadLimits();

    /**
     * The read limits to accept with; each 1..{@link ReadLimits#MAX}.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when out of range
     */
    ConnectionRequest withReadLimits(int inbound, int outbound);

    /**
     * The queue depths to accept with; each at least 1, capped to the adapter's maxima. Default
     * {@link QueueDepths#DEFAULT}.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when below 1
     */
    ConnectionRequest withQueueDepths(int initiator, int receive);

    /**
     * The segments one operation may carry (NDK's {@code MaxInitiatorRequestSge} and {@code MaxReceiveRequestSge}):
     * each at least 1, capped to {@link AdapterInfo#maxInitiatorSge()} and {@link AdapterInfo#maxReceiveSge()};
     * default {@value QueueDepths#DEFAULT_MAX_SGE} each.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when below 1
     */
    ConnectionRequest withMaxSge(int initiator, int receive);

    /**
     * Opens the connection in {@code domain} instead of the runtime's default one ({@code NdkCreateQp} on a PD): its
     * peer reaches only tokens of that domain, and it posts only that domain's regions, windows and slots. A shared
     * receive queue named for it must be of the same domain, which {@code accept()} checks.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for another runtime's domain,
     *                       {@link Status#INVALID_DEVICE_STATE} for a closed one
     */
    ConnectionRequest inDomain(ProtectionDomain domain);

    /**
     * Takes every Send the peer makes into {@code queue} instead of receives posted on the connection
     * ({@code NdkCreateQpWithSrq}). The queue must belong to this runtime and be open.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for another runtime's queue,
     *                       {@link Status#INVALID_DEVICE_STATE} for a closed one
     */
    ConnectionRequest withSharedReceiveQueue(SharedReceiveQueue queue);

    /**
     * Private data sent back with the accept, copied now; longer than {@link AdapterInfo#maxAcceptPrivateData()}
     * fails {@link #accept()} with {@link Status#BUFFER_OVERFLOW}.
     */
    ConnectionRequest withPrivateData(byte[] privateData);

    /**
     * NDK's disconnect event callback: run exactly once when the connection ends for a reason this application did
     * not cause ({@link DisconnectReason#isPeerInitiated()}: the peer disconnected or reset it, either side
     * terminated it over a protocol error, or this side's adapter failed), never after this side's
     * {@link RdmaConnection#disconnect()} or the runtime's close; on the poller or the runtime's completion
     * executor.
     */
    ConnectionRequest onDisconnect(Consumer<DisconnectReason> callback);

    /**
     * Accepts. The future completes once the connection is established: when the peer has completed its side
     * (two-phase peers) or our reply is sent (peers that do not confirm). It fails with
     * {@link Status#CONNECTION_ABORTED} if the peer gave up, {@link Status#IO_TIMEOUT} if it never completed.
     */
    CompletableFuture<RdmaConnection> accept();

    /**
     * Rejects; the peer's connect fails with {@link Status#CONNECTION_REFUSED} carrying {@code privateData}.
     * Longer than {@link AdapterInfo#maxRejectPrivateData()} fails with {@link Status#BUFFER_OVERFLOW} and leaves
     * the request unanswered. The future completes when the rejection has been sent.
     */
    CompletableFuture<Void> reject(byte[] privateData);
}
