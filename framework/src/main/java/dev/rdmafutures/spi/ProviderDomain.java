package dev.rdmafutures.spi;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A protection domain (NDK's {@code NDK_PD}, verbs' {@code ibv_pd}): the regions, windows, fast-register slots and
 * shared receive queues made in it, and the connections the core opens in it ({@link ConnectSpec#domain()},
 * {@link IncomingRequest#accept}). A connection's peer reaches only tokens of its connection's domain; the provider
 * enforces that, whatever token the peer sends. The core checks that what a connection posts (local regions,
 * windows, slots, its shared receive queue) is of the connection's domain before handing it over.
 */
public interface ProviderDomain {
    /**
     * Registers {@code bytes} (position to limit) with {@code access}. Thread-safe.
     *
     * @throws RdmaException INSUFFICIENT_RESOURCES when no token is left
     */
    ProviderRegion register(ByteBuffer bytes, Set<Access> access);

    /**
     * Creates a shared receive queue of {@code depth} receives of up to {@code maxSge} segments, on the caller's
     * thread; the core checked both against {@link AdapterInfo#maxSharedReceiveQueueDepth()} and
     * {@link AdapterInfo#maxReceiveSge()}.
     *
     * @throws RdmaException INSUFFICIENT_RESOURCES when the device has no room
     */
    ProviderSharedReceiveQueue createSharedReceiveQueue(int depth, int maxSge, SharedReceiveQueueEvents events);

    /**
     * Allocates an unbound memory window, on the caller's thread; only called where
     * {@link AdapterInfo#isMemoryWindowSupported()} is true.
     *
     * @throws RdmaException INSUFFICIENT_RESOURCES when the device has no window left
     */
    ProviderWindow allocateWindow();

    /**
     * Allocates an empty fast-register region slot, on the caller's thread; only called where
     * {@link AdapterInfo#isFastRegisterSupported()} is true, so a provider without them keeps this default.
     *
     * @throws RdmaException INSUFFICIENT_RESOURCES when the device has no token left
     */
    default ProviderFastRegion allocateFastRegion() {
        throw new RdmaException(Status.NOT_SUPPORTED, "this device has no fast registration");
    }

    /**
     * Releases the domain. The core calls it once, after everything made in it was closed and every connection in
     * it ended; a provider whose device finishes such an end later (a QP destroyed on a poller) releases the domain
     * when that is done.
     */
    void close();
}
