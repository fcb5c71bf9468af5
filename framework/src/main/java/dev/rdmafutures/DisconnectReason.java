package dev.rdmafutures;

/** Why a connection ended, as reported by {@link RdmaConnection#disconnected()} and disconnect callbacks. */
public enum DisconnectReason {
    /** The peer disconnected gracefully. Disconnect callbacks fire for this. */
    PEER_DISCONNECTED,
    /** The peer or the network reset the connection. Disconnect callbacks fire for this. */
    CONNECTION_RESET,
    /** The peer broke the protocol and the connection was terminated. Disconnect callbacks fire for this. */
    PROTOCOL_ERROR,
    /** This side called {@link RdmaConnection#disconnect()}; no callback fires. */
    LOCAL_DISCONNECT,
    /** The runtime was closed; no callback fires. */
    RUNTIME_CLOSED;

    /** Whether the peer (or the path to it) caused this end, the case NDK's disconnect event callback reports. */
    public boolean isPeerInitiated() {
        return this == PEER_DISCONNECTED || this == CONNECTION_RESET || this == PROTOCOL_ERROR;
    }
}
