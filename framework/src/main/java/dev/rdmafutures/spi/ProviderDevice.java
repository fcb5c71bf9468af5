package dev.rdmafutures.spi;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;

/** A provider opened for one runtime: its adapter, and factories for per-poller event loops and bound addresses. */
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

    /**
     * Registers {@code bytes} (position to limit) with {@code access}. Thread-safe.
     *
     * @throws dev.rdmafutures.RdmaException INSUFFICIENT_RESOURCES when no token is left
     */
    ProviderRegion register(ByteBuffer bytes, Set<Access> access);

    /**
     * Creates a shared receive queue of {@code depth} receives of up to {@code maxSge} segments, on the caller's
     * thread; the core checked both against {@link AdapterInfo#maxSharedReceiveQueueDepth()} and
     * {@link AdapterInfo#maxReceiveSge()}.
     *
     * @throws dev.rdmafutures.RdmaException INSUFFICIENT_RESOURCES when the device has no room
     */
    ProviderSharedReceiveQueue createSharedReceiveQueue(int depth, int maxSge, SharedReceiveQueueEvents events);

    /**
     * Allocates an unbound memory window, on the caller's thread; only called where
     * {@link AdapterInfo#isMemoryWindowSupported()} is true.
     *
     * @throws dev.rdmafutures.RdmaException INSUFFICIENT_RESOURCES when the device has no window left
     */
    ProviderWindow allocateWindow();

    /**
     * Allocates an empty fast-register region slot, on the caller's thread; only called where
     * {@link AdapterInfo#isFastRegisterSupported()} is true, so a provider without them keeps this default.
     *
     * @throws dev.rdmafutures.RdmaException INSUFFICIENT_RESOURCES when the device has no token left
     */
    default ProviderFastRegion allocateFastRegion() {
        throw new RdmaException(Status.NOT_SUPPORTED, adapterInfo().deviceName() + " has no fast registration");
    }

    /** Releases device-wide resources; called after every event loop is closed. */
    @Override
    void close();
}
