package dev.rdmafutures;

import java.net.InetSocketAddress;

/** The active side of connection establishment (NDK's {@code NDK_CONNECTOR}); from {@link RdmaRuntime#connector()}. */
public interface RdmaConnector {
    /**
     * Starts describing a connection to {@code destination}; nothing happens until {@link ConnectBuilder#start()}.
     *
     * @param destination the listener's address; must be resolved, port 1..65535
     * @throws RdmaException {@link Status#INVALID_ADDRESS} for an unresolved address or port 0
     */
    ConnectBuilder connect(InetSocketAddress destination);
}
