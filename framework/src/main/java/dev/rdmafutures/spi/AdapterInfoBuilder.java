package dev.rdmafutures.spi;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.ReadLimits;
import java.util.Objects;

/**
 * Builds the {@link AdapterInfo} a provider's device reports ({@link ProviderDevice#adapterInfo()}). Every limit
 * without a default must be set; {@link #build()} validates them: {@link IllegalStateException} for a limit missing or
 * out of range, {@link NullPointerException} for a missing name or transport. Not thread-safe; the
 * {@code AdapterInfo} it builds is immutable.
 */
public final class AdapterInfoBuilder {
    private String providerName;
    private String deviceName;
    private AdapterInfo.Transport transport;
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
    private boolean readFenceOnReadSupported = true;

    /** A builder with nothing set. */
    public AdapterInfoBuilder() {
    }

    /** The provider's name. */
    public AdapterInfoBuilder providerName(String name) {
        this.providerName = name;
        return this;
    }

    /** The device's name. */
    public AdapterInfoBuilder deviceName(String name) {
        this.deviceName = name;
        return this;
    }

    /** The wire family. */
    public AdapterInfoBuilder transport(AdapterInfo.Transport t) {
        this.transport = t;
        return this;
    }

    /** Read-limit maxima, each 0..{@link ReadLimits#MAX}. */
    public AdapterInfoBuilder maxReadLimits(int inbound, int outbound) {
        this.maxInboundReadLimit = inbound;
        this.maxOutboundReadLimit = outbound;
        return this;
    }

    /** Queue-depth maxima, each at least 1. */
    public AdapterInfoBuilder maxQueueDepths(int initiator, int receive) {
        this.maxInitiatorQueueDepth = initiator;
        this.maxReceiveQueueDepth = receive;
        return this;
    }

    /** Scatter-gather maxima per request, each at least 1. */
    public AdapterInfoBuilder maxSge(int initiator, int receive) {
        this.maxInitiatorSge = initiator;
        this.maxReceiveSge = receive;
        return this;
    }

    /** The deepest shared receive queue; default 0, none. */
    public AdapterInfoBuilder maxSharedReceiveQueueDepth(int depth) {
        this.maxSharedReceiveQueueDepth = depth;
        return this;
    }

    /** Whether memory windows can be bound; default false. */
    public AdapterInfoBuilder memoryWindowsSupported(boolean supported) {
        this.memoryWindowsSupported = supported;
        return this;
    }

    /** Whether an access through a window is confined to its bound span; default true. */
    public AdapterInfoBuilder memoryWindowSpanEnforced(boolean enforced) {
        this.memoryWindowSpanEnforced = enforced;
        return this;
    }

    /** Whether memory can be registered through a connection's queue; default false. */
    public AdapterInfoBuilder fastRegisterSupported(boolean supported) {
        this.fastRegisterSupported = supported;
        return this;
    }

    /** Private-data maxima for connect, accept and reject. */
    public AdapterInfoBuilder maxPrivateData(int connect, int accept, int reject) {
        this.maxConnectPrivateData = connect;
        this.maxAcceptPrivateData = accept;
        this.maxRejectPrivateData = reject;
        return this;
    }

    /** Whether reads can invalidate their local buffer's token. */
    public AdapterInfoBuilder readLocalInvalidateSupported(boolean supported) {
        this.readLocalInvalidateSupported = supported;
        return this;
    }

    /** Default true. */
    public AdapterInfoBuilder remoteInvalidateSupported(boolean supported) {
        this.remoteInvalidateSupported = supported;
        return this;
    }

    /** Whether region tokens can be revoked by a peer or a read; default true. */
    public AdapterInfoBuilder regionInvalidateSupported(boolean supported) {
        this.regionInvalidateSupported = supported;
        return this;
    }

    /** Default true. */
    public AdapterInfoBuilder passiveAcceptWaitsForCompleteConnect(boolean waits) {
        this.passiveAcceptWaitsForCompleteConnect = waits;
        return this;
    }

    /** Default true. */
    public AdapterInfoBuilder sendWaitsForPeerReceive(boolean waits) {
        this.sendWaitsForPeerReceive = waits;
        return this;
    }

    /** Default true. */
    public AdapterInfoBuilder readFenceOnReadSupported(boolean supported) {
        this.readFenceOnReadSupported = supported;
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
        return new Built(this);
    }

    /** The immutable {@link AdapterInfo} a builder made. */
    private static final class Built implements AdapterInfo {
        private final String providerName;
        private final String deviceName;
        private final AdapterInfo.Transport transport;
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
        private final boolean readFenceOnReadSupported;

        private Built(AdapterInfoBuilder b) {
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
            this.readFenceOnReadSupported = b.readFenceOnReadSupported;
        }

        @Override
        public String providerName() {
            return providerName;
        }

        @Override
        public String deviceName() {
            return deviceName;
        }

        @Override
        public AdapterInfo.Transport transport() {
            return transport;
        }

        @Override
        public int maxInboundReadLimit() {
            return maxInboundReadLimit;
        }

        @Override
        public int maxOutboundReadLimit() {
            return maxOutboundReadLimit;
        }

        @Override
        public int maxInitiatorQueueDepth() {
            return maxInitiatorQueueDepth;
        }

        @Override
        public int maxReceiveQueueDepth() {
            return maxReceiveQueueDepth;
        }

        @Override
        public int maxInitiatorSge() {
            return maxInitiatorSge;
        }

        @Override
        public int maxReceiveSge() {
            return maxReceiveSge;
        }

        @Override
        public int maxSharedReceiveQueueDepth() {
            return maxSharedReceiveQueueDepth;
        }

        @Override
        public boolean isMemoryWindowSupported() {
            return memoryWindowsSupported;
        }

        @Override
        public boolean isMemoryWindowSpanEnforced() {
            return memoryWindowsSupported && memoryWindowSpanEnforced;
        }

        @Override
        public boolean isFastRegisterSupported() {
            return fastRegisterSupported;
        }

        @Override
        public int maxConnectPrivateData() {
            return maxConnectPrivateData;
        }

        @Override
        public int maxAcceptPrivateData() {
            return maxAcceptPrivateData;
        }

        @Override
        public int maxRejectPrivateData() {
            return maxRejectPrivateData;
        }

        @Override
        public boolean isReadLocalInvalidateSupported() {
            return readLocalInvalidateSupported;
        }

        @Override
        public boolean isRemoteInvalidateSupported() {
            return remoteInvalidateSupported;
        }

        @Override
        public boolean isRegionInvalidateSupported() {
            return regionInvalidateSupported;
        }

        @Override
        public boolean passiveAcceptWaitsForCompleteConnect() {
            return passiveAcceptWaitsForCompleteConnect;
        }

        @Override
        public boolean sendWaitsForPeerReceive() {
            return sendWaitsForPeerReceive;
        }

        @Override
        public boolean isReadFenceOnReadSupported() {
            return readFenceOnReadSupported;
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
    }
}
