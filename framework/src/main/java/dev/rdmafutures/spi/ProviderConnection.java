package dev.rdmafutures.spi;

import java.net.InetSocketAddress;

/** A provider's established connection. Poller thread only, except the address accessors. */
public interface ProviderConnection {
    /** Our address. Thread-safe. */
    InetSocketAddress localAddress();

    /** The peer's address. Thread-safe. */
    InetSocketAddress remoteAddress();

    /**
     * Posts a request. Send-queue requests (reads, writes, sends) complete in the order posted, receives in the
     * order posted; a connection that is no longer connected fails it with CONNECTION_INVALID.
     */
    void post(WorkRequest request);

    /**
     * Disconnects gracefully, bounded by the configured disconnect timeout; ends with
     * {@link ConnectionEvents#onDisconnected} (LOCAL_DISCONNECT unless the peer was first).
     */
    void disconnect();
}
