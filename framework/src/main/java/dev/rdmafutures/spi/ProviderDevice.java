package dev.rdmafutures.spi;

import dev.rdmafutures.AdapterInfo;
import java.net.InetSocketAddress;

/**
 * A provider opened for one runtime: its adapter, factories for per-poller event loops and bound addresses, and its
 * protection domains.
 */
public interface ProviderDevice extends AutoCloseable {
    /** The adapter's capabilities. Thread-safe. */
    AdapterInfo adapterInfo();

    /** Creates the event loop one poller will own; called once per poller, before the poller thread starts. */
    EventLoop newEventLoop(PollerContext poller);

    /**
     * Binds a listening address on the caller's thread so that address errors are immediate. The transport must
     * hold as many pending requests as the platform allows until the poller takes them: the listener's backlog is
     * the framework's, which refuses what lies beyond it. A transport queue as short as that backlog would drop a
     * burst that lands while the poller is busy (rdma_cm and TCP both drop silently, leaving the peer to retry
     * seconds later) instead of refusing it.
     *
     * @throws dev.rdmafutures.RdmaException SHARING_VIOLATION, INVALID_ADDRESS, INSUFFICIENT_RESOURCES
     */
    BoundListener bindListener(InetSocketAddress address);

    /**
     * Reserves a local address for a shared endpoint, on the caller's thread.
     *
     * @throws dev.rdmafutures.RdmaException SHARING_VIOLATION, INVALID_ADDRESS, TOO_MANY_ADDRESSES
     */
    SharedAddress reserveSharedAddress(InetSocketAddress address);

    /** The domain of everything the runtime makes without naming one; released with the device. */
    ProviderDomain defaultDomain();

    /**
     * Creates another protection domain, on the caller's thread.
     *
     * @throws dev.rdmafutures.RdmaException INSUFFICIENT_RESOURCES when the device has no room
     */
    ProviderDomain createDomain();

    /** Releases device-wide resources; called after every event loop is closed. */
    @Override
    void close();
}
