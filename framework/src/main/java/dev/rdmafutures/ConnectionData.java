package dev.rdmafutures;

import java.util.Objects;

/**
 * What connection establishment negotiated (NDK's {@code NdkGetConnectionData}): the effective read limits and the
 * private data the peer sent. Immutable.
 */
public final class ConnectionData {
    private final ReadLimits readLimits;
    private final byte[] peerPrivateData;

    /** Creates connection data; the private data is copied. */
    public ConnectionData(ReadLimits readLimits, byte[] peerPrivateData) {
        this.readLimits = Objects.requireNonNull(readLimits, "readLimits");
        this.peerPrivateData = peerPrivateData.clone();
    }

    /** The effective limits: inbound = min(ours, adapter, peer's outbound), outbound likewise. */
    public ReadLimits readLimits() {
        return readLimits;
    }

    /**
     * The peer's private data, a fresh copy. Transports may pad it (InfiniBand does), so applications carry their
     * own lengths.
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public String toString() {
        return "ConnectionData[inbound=" + readLimits.inbound() + ", outbound=" + readLimits.outbound()
                + ", peerPrivateData=" + peerPrivateData.length + " bytes]";
    }
}
