package dev.rdmafutures.spi;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.RdmaException;

/** How a provider reports the end of establishment; exactly one method is called, once, on the poller thread. */
public interface EstablishEvents {
    /** The connection is up. {@code events} of the connection start from here. */
    void onEstablished(ProviderConnection connection, ConnectionData data);

    /** Establishment failed; everything it held is released. */
    void onFailed(RdmaException error);
}
