package dev.rdmafutures;

/** Why a connection ended, as reported by {@link RdmaConnection#disconnected()} and disconnect callbacks. */
public enum DisconnectReason {
    /** The peer disconnected gracefully. Disconnect callbacks fire for this. */
    PEER_DISCONNECTED,
    /** The peer or the network reset the connection. Disconnect callbacks fire for this. */
    CONNECTION_RESET,
    /**
     * The connection was terminated over a protocol error, by either side: the peer's request broke the rules (an
     * access it was not given, a Send larger than the receive) or the peer terminated ours. Disconnect callbacks
     * fire for this on both sides: neither application asked for the end.
     */
    PROTOCOL_ERROR,
    /**
     * This side's adapter, port or queue failed: port down, a fatal QP or CQ error, a device failure. Disconnect
     * callbacks fire for this.
     */
    DEVICE_ERROR,
    /** This side called {@link RdmaConnection#disconnect()}; no callback fires. */
    LOCAL_DISCONNECT,
    /** The runtime was closed; no callback fires. */
    RUNTIME_CLOSED;

    /**
     * Whether this end was not caused by this application (the peer, the path to it, or this side's adapter), the
     * case NDK's disconnect event callback reports.
     */
    public boolean isPeerInitiated() {
        return this == PEER_DISCONNECTED || this == CONNECTION_RESET || this == PROTOCOL_ERROR || this == DEVICE_ERROR;
    }
}
