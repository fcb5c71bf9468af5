package dev.rdmafutures;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The builder of one outgoing connect (NDK's {@code NdkConnect} / {@code NdkConnectWithSharedEndpoint}). Setters
 * validate their argument at once; {@link #start()} sends the request.
 *
 * <p>Defaults: read limits {@link ReadLimits#DEFAULT}, queue depths {@link QueueDepths#DEFAULT}, no private data, an ephemeral local port, and the runtime's
 * connect timeout ({@link RdmaRuntime.Builder#connectTimeout(Duration)}, 10 s unless changed).
 */
public interface ConnectBuilder {
    /**
     * The read limits to ask for; each 1..{@link ReadLimits#MAX}, capped by adapter and peer.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when out of range
     */
    ConnectBuilder withReadLimits(int inbound, int outbound);

    /**
     * The queue depths to create the connection with (NDK's initiator and receive queue depths): each at least 1,
     * capped to {@link AdapterInfo#maxInitiatorQueueDepth()} and {@link AdapterInfo#maxReceiveQueueDepth()}.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when below 1
     */
    ConnectBuilder withQueueDepths(int initiator, int receive);

    /**
     * The segments one operation may carry (NDK's {@code MaxInitiatorRequestSge} and {@code MaxReceiveRequestSge}):
     * each at least 1, capped to {@link AdapterInfo#maxInitiatorSge()} and {@link AdapterInfo#maxReceiveSge()};
     * default {@value QueueDepths#DEFAULT_MAX_SGE} each.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when below 1
     */
    ConnectBuilder withMaxSge(int initiator, int receive);

    /**
     * Opens the connection in {@code domain} instead of the runtime's default one ({@code NdkCreateQp} on a PD): its
     * peer reaches only tokens of that domain, and it posts only that domain's regions, windows and slots. A shared
     * receive queue named for it must be of the same domain, which {@code start()} checks.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for another runtime's domain,
     *                       {@link Status#INVALID_DEVICE_STATE} for a closed one
     */
    ConnectBuilder inDomain(ProtectionDomain domain);

    /**
     * Takes every Send the peer makes into {@code queue} instead of receives posted on the connection
     * ({@code NdkCreateQpWithSrq}). The queue must belong to this runtime and be open.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for another runtime's queue,
     *                       {@link Status#INVALID_DEVICE_STATE} for a closed one
     */
    ConnectBuilder withSharedReceiveQueue(SharedReceiveQueue queue);

    /**
     * Private data sent with the request, copied now. Longer than {@link AdapterInfo#maxConnectPrivateData()} fails
     * the future of {@link #start()} with {@link Status#BUFFER_OVERFLOW}.
     */
    ConnectBuilder withPrivateData(byte[] privateData);

    /** Connect from this local address; port 0 picks an ephemeral port. Excludes {@link #from(SharedEndpoint)}. */
    ConnectBuilder from(InetSocketAddress localAddress);

    /** Connect from a shared endpoint's address and port ({@code NdkConnectWithSharedEndpoint}). */
    ConnectBuilder from(SharedEndpoint sharedEndpoint);

    /**
     * The deadline for the whole establishment; {@link Status#IO_TIMEOUT} after it.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} unless positive and at most one day
     */
    ConnectBuilder withTimeout(Duration timeout);

    /**
     * NDK's disconnect event callback: run exactly once when the connection ends for a reason this application did
     * not cause ({@link DisconnectReason#isPeerInitiated()}: the peer disconnected or reset it, either side
     * terminated it over a protocol error, or this side's adapter failed), never after this side's
     * {@link RdmaConnection#disconnect()} or the runtime's close; on the poller or the runtime's completion
     * executor.
     */
    ConnectBuilder onDisconnect(Consumer<DisconnectReason> callback);

    /**
     * Two-phase connect (Network Direct's Connect, then CompleteConnect or Reject): the future of the returned
     * request completes when the peer has accepted, so its private data and limits can be inspected first.
     */
    DeferredConnectBuilder deferCompletion();

    /**
     * Sends the request. Every failure, inline or later, surfaces through the future as an {@link RdmaException};
     * nothing is thrown. Cancelling the future aborts the attempt and releases everything. A second call fails
     * with {@link Status#CONNECTION_ACTIVE}; a call after {@link #deferCompletion()} (whose builder's own
     * {@code start()} sends the request) with {@link Status#INVALID_DEVICE_STATE}, leaving that request unsent.
     */
    CompletableFuture<RdmaConnection> start();
}
