package dev.rdmafutures;

import java.util.Objects;

/**
 * What the provider's adapter can do (NDK's {@code NDK_ADAPTER_INFO}): read-limit and queue-depth maxima,
 * private-data sizes per connection phase, and optional capabilities. Immutable; providers build it with {@link #builder()}.
 */
public final class AdapterInfo {
    /** The wire family an adapter speaks: it decides private-data sizes and who can interoperate. */
    public enum Transport {
        /** iWARP: MPA/DDP/RDMAP over TCP (the {@code soft} provider, siw, iWARP NICs). */
        IWARP,
        /** RDMA over Converged Ethernet (rxe, RoCE NICs). */
        ROCE,
        /** InfiniBand. */
        INFINIBAND
    }

    private final String providerName;
    private final String deviceName;
    private final Transport transport;
    private final int maxInboundReadLimit;
    private final int maxOutboundReadLimit;
    private final int maxInitiatorQueueDepth;
    private final int maxReceiveQueueDepth;
    private final int maxInitiatorSge;
    private final int maxReceiveSge;
    private final int maxSharedReceiveQueueDepth;
    private final boolean memoryWindowsSupported;
    private final boolean memoryWindowSpanEnforced;
    private final boolean fastRegisterSupported;
    private final int maxConnectPrivateData;
    private final int maxAcceptPrivateData;
    private final int maxRejectPrivateData;
    private final boolean readLocalInvalidateSupported;
    private final boolean remoteInvalidateSupported;
    private final boolean regionInvalidateSupported;
    private final boolean passiveAcceptWaitsForCompleteConnect;
    private final boolean sendWaitsForPeerReceive;

    private AdapterInfo(Builder b) {
        this.providerName = Objects.requireNonNull(b.providerName, "providerName");
        this.deviceName = Objects.requireNonNull(b.deviceName, "deviceName");
        this.transport = Objects.requireNonNull(b.transport, "transport");
        this.maxInboundReadLimit = b.maxInboundReadLimit;
        this.maxOutboundReadLimit = b.maxOutboundReadLimit;
        this.maxInitiatorQueueDepth = b.maxInitiatorQueueDepth;
        this.maxReceiveQueueDepth = b.maxReceiveQueueDepth;
        this.maxInitiatorSge = b.maxInitiatorSge;
        this.maxReceiveSge = b.maxReceiveSge;
        this.maxSharedReceiveQueueDepth = b.maxSharedReceiveQueueDepth;
        this.memoryWindowsSupported = b.memoryWindowsSupported;
        this.memoryWindowSpanEnforced = b.memoryWindowSpanEnforced;
        this.fastRegisterSupported = b.fastRegisterSupported;
        this.maxConnectPrivateData = b.maxConnectPrivateData;
        this.maxAcceptPrivateData = b.maxAcceptPrivateData;
        this.maxRejectPrivateData = b.maxRejectPrivateData;
        this.readLocalInvalidateSupported = b.readLocalInvalidateSupported;
        this.remoteInvalidateSupported = b.remoteInvalidateSupported;
        this.regionInvalidateSupported = b.regionInvalidateSupported;
        this.passiveAcceptWaitsForCompleteConnect = b.passiveAcceptWaitsForCompleteConnect;
        this.sendWaitsForPeerReceive = b.sendWaitsForPeerReceive;
    }

    /** A builder for providers; every limit must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** The provider's name, as given to {@link RdmaRuntime.Builder#provider(String)}. */
    public String providerName() {
        return providerName;
    }

    /** The device, e.g. {@code rxe0}, {@code siw0}, or {@code soft-tcp}. */
    public String deviceName() {
        return deviceName;
    }

    /** The wire family. */
    public Transport transport() {
        return transport;
    }

    /** The most inbound reads the adapter lets a peer have in flight (NDK {@code MaxInboundReadLimit}). */
    public int maxInboundReadLimit() {
        return maxInboundReadLimit;
    }

    /** The most outbound reads the adapter lets us have in flight (NDK {@code MaxOutboundReadLimit}). */
    public int maxOutboundReadLimit() {
        return maxOutboundReadLimit;
    }

    /**
     * The deepest initiator queue a connection can have (NDK {@code MaxInitiatorQueueDepth}): READs, WRITEs and
     * SENDs outstanding at once. Deeper requests are capped to it.
     */
    public int maxInitiatorQueueDepth() {
        return maxInitiatorQueueDepth;
    }

    /** The deepest receive queue a connection can have (NDK {@code MaxReceiveQueueDepth}); deeper requests are capped. */
    public int maxReceiveQueueDepth() {
        return maxReceiveQueueDepth;
    }

    /**
     * The most segments one READ, WRITE or SEND may carry (NDK {@code MaxInitiatorRequestSge}); a connection's
     * {@link QueueDepths#initiatorSge()} is capped to it.
     */
    public int maxInitiatorSge() {
        return maxInitiatorSge;
    }

    /** The most segments one receive may carry (NDK {@code MaxReceiveRequestSge}); requests are capped to it. */
    public int maxReceiveSge() {
        return maxReceiveSge;
    }

    /**
     * The deepest shared receive queue the adapter creates (NDK {@code MaxSrqDepth}); 0 when it has none, and then
     * {@link RdmaRuntime#sharedReceiveQueue} fails with {@link Status#NOT_SUPPORTED}.
     */
    public int maxSharedReceiveQueueDepth() {
        return maxSharedReceiveQueueDepth;
    }

    /**
     * Whether the adapter binds memory windows (NDK {@code NdkCreateMw}/{@code NdkBind}, verbs type-2 windows);
     * where false, {@link RdmaRuntime#allocateMemoryWindow()} fails with {@link Status#NOT_SUPPORTED}.
     */
    public boolean isMemoryWindowSupported() {
        return memoryWindowsSupported;
    }

    /**
     * Whether a peer's access through a memory window is confined to the bound span. Where false (verbs on rxe, whose
     * kernel driver checks such an access against the region under the window), a window still narrows the rights
     * and the connection it may be used on, but a peer may reach the rest of the region with it: bind windows over
     * regions that hold only what the peer may see. False where windows are not supported.
     */
    public boolean isMemoryWindowSpanEnforced() {
        return memoryWindowsSupported && memoryWindowSpanEnforced;
    }

    /**
     * Whether the adapter registers memory through a connection's queue (NDK's {@code NdkCreateMr} for fast
     * registration and {@code NdkFastRegister}; {@link RdmaRuntime#allocateFastRegion()}). soft: true. verbs: false, as libibverbs
     * offers fast registration ({@code IB_WR_REG_MR}) to kernel users only.
     */
    public boolean isFastRegisterSupported() {
        return fastRegisterSupported;
    }

    /** The most private data a connect request carries. */
    public int maxConnectPrivateData() {
        return maxConnectPrivateData;
    }

    /** The most private data an accept carries. */
    public int maxAcceptPrivateData() {
        return maxAcceptPrivateData;
    }

    /** The most private data a reject carries. */
    public int maxRejectPrivateData() {
        return maxRejectPrivateData;
    }

    /** Whether the {@code RDMA_READ_LOCAL_INVALIDATE} read flag is honoured (NDK ignores it elsewhere). */
    public boolean isReadLocalInvalidateSupported() {
        return readLocalInvalidateSupported;
    }

    /**
     * Whether connections on this adapter send Send with Invalidate (NDK's {@code NdkSendAndInvalidate}); where
     * false, {@link RdmaConnection#sendAndInvalidate} fails with {@link Status#NOT_SUPPORTED}. What the peer can
     * revoke is up to its adapter: its memory windows where it binds them, its regions where
     * {@link #isRegionInvalidateSupported()} says so; naming another token breaks the connection. soft: true; verbs:
     * where the device binds memory windows (rxe), the only tokens a verbs peer can revoke.
     */
    public boolean isRemoteInvalidateSupported() {
        return remoteInvalidateSupported;
    }

    /**
     * Whether this adapter's region tokens can be revoked: by a peer's Send with Invalidate naming one, or by a READ
     * with {@link OperationFlag#RDMA_READ_LOCAL_INVALIDATE}. soft: true (iWARP STags). verbs: false, as libibverbs
     * revokes memory windows only: the regions {@code register} creates cannot be invalidated, and user space has no
     * fast-registered regions.
     */
    public boolean isRegionInvalidateSupported() {
        return regionInvalidateSupported;
    }

    /**
     * Whether the passive side of a two-phase connect is held until the active side completes it (NDK's
     * CompleteConnect). Kernel iWARP establishes both sides as soon as the MPA reply is sent, so there the passive
     * accept completes at once and the active side's second phase is local.
     */
    public boolean passiveAcceptWaitsForCompleteConnect() {
        return passiveAcceptWaitsForCompleteConnect;
    }

    /**
     * Whether a Send that finds no receive posted at the peer waits for one (IB/RoCE: RNR retries; soft: held up to
     * the handshake timeout) rather than terminating the connection (kernel iWARP).
     */
    public boolean sendWaitsForPeerReceive() {
        return sendWaitsForPeerReceive;
    }

    @Override
    public String toString() {
        return "AdapterInfo[" + providerName + "/" + deviceName + " " + transport
                + ", readLimits in<=" + maxInboundReadLimit + " out<=" + maxOutboundReadLimit
                + ", queueDepths initiator<=" + maxInitiatorQueueDepth + " receive<=" + maxReceiveQueueDepth
                + ", sge initiator<=" + maxInitiatorSge + " receive<=" + maxReceiveSge
                + ", srq<=" + maxSharedReceiveQueueDepth
                + (!memoryWindowsSupported ? "" : memoryWindowSpanEnforced ? ", windows" : ", windows (span unchecked)")
                + (fastRegisterSupported ? ", fast registration" : "")
                + ", privateData connect<=" + maxConnectPrivateData + " accept<=" + maxAcceptPrivateData
                + " reject<=" + maxRejectPrivateData + "]";
    }

    /** Builds an {@link AdapterInfo}; {@link #build()} validates that every limit is set and sane. */
    public static final class Builder {
        private String providerName;
        private String deviceName;
        private Transport transport;
        private int maxInboundReadLimit = -1;
        private int maxOutboundReadLimit = -1;
        private int maxInitiatorQueueDepth = -1;
        private int maxReceiveQueueDepth = -1;
        private int maxInitiatorSge = -1;
        private int maxReceiveSge = -1;
        private int maxSharedReceiveQueueDepth;
        private boolean memoryWindowsSupported;
        private boolean memoryWindowSpanEnforced = true;
        private boolean fastRegisterSupported;
        private int maxConnectPrivateData = -1;
        private int maxAcceptPrivateData = -1;
        private int maxRejectPrivateData = -1;
        private boolean readLocalInvalidateSupported;
        private boolean remoteInvalidateSupported = true;
        private boolean regionInvalidateSupported = true;
        private boolean passiveAcceptWaitsForCompleteConnect = true;
        private boolean sendWaitsForPeerReceive = true;

        private Builder() {
        }

        /** The provider's name. */
        public Builder providerName(String name) {
            this.providerName = name;
            return this;
        }

        /** The device's name. */
        public Builder deviceName(String name) {
            this.deviceName = name;
            return this;
        }

        /** The wire family. */
        public Builder transport(Transport t) {
            this.transport = t;
            return this;
        }

        /** Read-limit maxima, each 0..{@link ReadLimits#MAX}. */
        public Builder maxReadLimits(int inbound, int outbound) {
            this.maxInboundReadLimit = inbound;
            this.maxOutboundReadLimit = outbound;
            return this;
        }

        /** Queue-depth maxima, each at least 1. */
        public Builder maxQueueDepths(int initiator, int receive) {
            this.maxInitiatorQueueDepth = initiator;
            this.maxReceiveQueueDepth = receive;
            return this;
        }

        /** Scatter-gather maxima per request, each at least 1. */
        public Builder maxSge(int initiator, int receive) {
            this.maxInitiatorSge = initiator;
            this.maxReceiveSge = receive;
            return this;
        }

        /** The deepest shared receive queue; default 0, none. */
        public Builder maxSharedReceiveQueueDepth(int depth) {
            this.maxSharedReceiveQueueDepth = depth;
            return this;
        }

        /** Whether memory windows can be bound; default false. */
        public Builder memoryWindowsSupported(boolean supported) {
            this.memoryWindowsSupported = supported;
            return this;
        }

        /** Whether an access through a window is confined to its bound span; default true. */
        public Builder memoryWindowSpanEnforced(boolean enforced) {
            this.memoryWindowSpanEnforced = enforced;
            return this;
        }

        /** Whether memory can be registered through a connection's queue; default false. */
        public Builder fastRegisterSupported(boolean supported) {
            this.fastRegisterSupported = supported;
            return this;
        }

        /** Private-data maxima for connect, accept and reject. */
        public Builder maxPrivateData(int connect, int accept, int reject) {
            this.maxConnectPrivateData = connect;
            this.maxAcceptPrivateData = accept;
            this.maxRejectPrivateData = reject;
            return this;
        }

        /** Whether reads can invalidate their local buffer's token. */
        public Builder readLocalInvalidateSupported(boolean supported) {
            this.readLocalInvalidateSupported = supported;
            return this;
        }

        /** Default true. */
        public Builder remoteInvalidateSupported(boolean supported) {
            this.remoteInvalidateSupported = supported;
            return this;
        }

        /** Whether region tokens can be revoked by a peer or a read; default true. */
        public Builder regionInvalidateSupported(boolean supported) {
            this.regionInvalidateSupported = supported;
            return this;
        }

        /** Default true. */
        public Builder passiveAcceptWaitsForCompleteConnect(boolean waits) {
            this.passiveAcceptWaitsForCompleteConnect = waits;
            return this;
        }

        /** Default true. */
        public Builder sendWaitsForPeerReceive(boolean waits) {
            this.sendWaitsForPeerReceive = waits;
            return this;
        }

        /** Validates and builds. */
        public AdapterInfo build() {
            new ReadLimits(maxInboundReadLimit, maxOutboundReadLimit);
            if (maxInitiatorQueueDepth < 1 || maxReceiveQueueDepth < 1) {
                throw new IllegalStateException("queue-depth maxima must be set and at least 1");
            }
            if (maxInitiatorSge < 1 || maxReceiveSge < 1 || maxSharedReceiveQueueDepth < 0) {
                throw new IllegalStateException("scatter-gather maxima must be set and at least 1, SRQ depth >= 0");
            }
            if (maxConnectPrivateData < 0 || maxAcceptPrivateData < 0 || maxRejectPrivateData < 0) {
                throw new IllegalStateException("private-data maxima must be set and non-negative");
            }
            return new AdapterInfo(this);
        }
    }
}
