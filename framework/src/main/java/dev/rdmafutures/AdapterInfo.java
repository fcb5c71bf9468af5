package dev.rdmafutures;

/**
 * What the provider's adapter can do (NDK's {@code NDK_ADAPTER_INFO}): read-limit and queue-depth maxima,
 * private-data sizes per connection phase, and optional capabilities. {@link RdmaRuntime#adapterInfo()} reports it;
 * providers build it with the SPI's {@code AdapterInfoBuilder}. Immutable and thread-safe.
 */
public interface AdapterInfo {
    /** The wire family an adapter speaks: it decides private-data sizes and who can interoperate. */
    public enum Transport {
        /** iWARP: MPA/DDP/RDMAP over TCP (the {@code soft} provider, siw, iWARP NICs). */
        IWARP,
        /** RDMA over Converged Ethernet (rxe, RoCE NICs). */
        ROCE,
        /** InfiniBand. */
        INFINIBAND
    }

    /** The provider's name, as given to {@link RdmaRuntime.Builder#provider(String)}. */
    String providerName();

    /** The device, e.g. {@code rxe0}, {@code siw0}, or {@code soft-tcp}. */
    String deviceName();

    /** The wire family. */
    Transport transport();

    /** The most inbound reads the adapter lets a peer have in flight (NDK {@code MaxInboundReadLimit}). */
    int maxInboundReadLimit();

    /** The most outbound reads the adapter lets us have in flight (NDK {@code MaxOutboundReadLimit}). */
    int maxOutboundReadLimit();

    /**
     * The deepest initiator queue a connection can have (NDK {@code MaxInitiatorQueueDepth}): READs, WRITEs and
     * SENDs outstanding at once. Deeper requests are capped to it.
     */
    int maxInitiatorQueueDepth();

    /** The deepest receive queue a connection can have (NDK {@code MaxReceiveQueueDepth}); deeper requests are capped. */
    int maxReceiveQueueDepth();

    /**
     * The most segments one READ, WRITE or SEND may carry (NDK {@code MaxInitiatorRequestSge}); a connection's
     * {@link QueueDepths#initiatorSge()} is capped to it.
     */
    int maxInitiatorSge();

    /** The most segments one receive may carry (NDK {@code MaxReceiveRequestSge}); requests are capped to it. */
    int maxReceiveSge();

    /**
     * The deepest shared receive queue the adapter creates (NDK {@code MaxSrqDepth}); 0 when it has none, and then
     * {@link RdmaRuntime#sharedReceiveQueue} fails with {@link Status#NOT_SUPPORTED}.
     */
    int maxSharedReceiveQueueDepth();

    /**
     * Whether the adapter binds memory windows (NDK {@code NdkCreateMw}/{@code NdkBind}, verbs type-2 windows);
     * where false, {@link RdmaRuntime#allocateMemoryWindow()} fails with {@link Status#NOT_SUPPORTED}.
     */
    boolean isMemoryWindowSupported();

    /**
     * Whether a peer's access through a memory window is confined to the bound span. Where false (verbs on rxe, whose
     * kernel driver checks such an access against the region under the window), a window still narrows the rights
     * and the connection it may be used on, but a peer may reach the rest of the region with it: bind windows over
     * regions that hold only what the peer may see. False where windows are not supported.
     */
    boolean isMemoryWindowSpanEnforced();

    /**
     * Whether the adapter registers memory through a connection's queue (NDK's {@code NdkCreateMr} for fast
     * registration and {@code NdkFastRegister}; {@link RdmaRuntime#allocateFastRegion()}). soft: true. verbs: false, as libibverbs
     * offers fast registration ({@code IB_WR_REG_MR}) to kernel users only.
     */
    boolean isFastRegisterSupported();

    /** The most private data a connect request carries. */
    int maxConnectPrivateData();

    /** The most private data an accept carries. */
    int maxAcceptPrivateData();

    /** The most private data a reject carries. */
    int maxRejectPrivateData();

    /** Whether the {@code RDMA_READ_LOCAL_INVALIDATE} read flag is honoured (NDK ignores it elsewhere). */
    boolean isReadLocalInvalidateSupported();

    /**
     * Whether connections on this adapter send Send with Invalidate (NDK's {@code NdkSendAndInvalidate}); where
     * false, {@link RdmaConnection#sendAndInvalidate} fails with {@link Status#NOT_SUPPORTED}. What the peer can
     * revoke is up to its adapter: its memory windows where it binds them, its regions where
     * {@link #isRegionInvalidateSupported()} says so; naming another token breaks the connection. soft: true; verbs:
     * where the device binds memory windows (rxe), the only tokens a verbs peer can revoke.
     */
    boolean isRemoteInvalidateSupported();

    /**
     * Whether this adapter's region tokens can be revoked: by a peer's Send with Invalidate naming one, or by a READ
     * with {@link OperationFlags#RDMA_READ_LOCAL_INVALIDATE}. soft: true (iWARP STags). verbs: false, as libibverbs
     * revokes memory windows only: the regions {@code register} creates cannot be invalidated, and user space has no
     * fast-registered regions.
     */
    boolean isRegionInvalidateSupported();

    /**
     * Whether the passive side of a two-phase connect is held until the active side completes it (NDK's
     * CompleteConnect). Kernel iWARP establishes both sides as soon as the MPA reply is sent, so there the passive
     * accept completes at once and the active side's second phase is local.
     */
    boolean passiveAcceptWaitsForCompleteConnect();

    /**
     * Whether a Send that finds no receive posted at the peer waits for one (IB/RoCE: RNR retries; soft: held up to
     * the handshake timeout) rather than terminating the connection (kernel iWARP).
     */
    boolean sendWaitsForPeerReceive();

    /**
     * Whether a READ may carry {@link OperationFlags#READ_FENCE}; where false, such a READ is refused with
     * {@link Status#NOT_SUPPORTED} before it is posted and the connection stays up (fencing other operations behind
     * earlier READs works everywhere). soft: true. verbs: false on siw, Linux's soft-iWARP, which fails a fenced READ
     * and with it the queue pair; true elsewhere.
     */
    boolean isReadFenceOnReadSupported();
}
