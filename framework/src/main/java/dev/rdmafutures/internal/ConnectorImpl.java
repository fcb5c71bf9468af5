package dev.rdmafutures.internal;

import dev.rdmafutures.ConnectBuilder;
import dev.rdmafutures.RdmaConnector;
import java.net.InetSocketAddress;

/** The runtime's connector: a factory of connect requests. */
final class ConnectorImpl implements RdmaConnector {
    private final RuntimeOwner runtime;

    ConnectorImpl(RuntimeOwner runtime) {
        this.runtime = runtime;
    }

    @Override
    public ConnectBuilder connect(InetSocketAddress destination) {
        return new ConnectBuilderImpl(runtime, destination);
    }
}
