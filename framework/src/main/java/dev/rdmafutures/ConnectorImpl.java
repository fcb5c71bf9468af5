package dev.rdmafutures;

import java.net.InetSocketAddress;

/** The runtime's connector: a factory of connect requests. */
final class ConnectorImpl implements RdmaConnector {
    private final RdmaRuntime runtime;

    ConnectorImpl(RdmaRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public ConnectRequest connect(InetSocketAddress destination) {
        return new ConnectRequestImpl(runtime, destination);
    }
}
