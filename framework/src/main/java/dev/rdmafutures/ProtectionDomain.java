package dev.rdmafutures;

import java.nio.ByteBuffer;

/**
 * A protection domain (NDK's {@code NdkCreatePd}, verbs' {@code ibv_alloc_pd}): a scope for memory. Regions, memory
 * windows, fast-register slots and shared receive queues made through a domain belong to it, and so does a
 * connection opened with {@code inDomain(domain)} ({@link ConnectBuilder#inDomain},
 * {@link ConnectionRequest#inDomain}).
 * A connection's peer reaches only the tokens of its connection's domain: a token of another domain is refused as a
 * forged one is ({@link Status#ACCESS_VIOLATION} at the peer, which loses the connection), whatever its bits. A
 * connection posts only what belongs to its domain: a local region, window, slot or shared receive queue of another
 * domain is refused at the post or the connect ({@link Status#ACCESS_VIOLATION}, {@link Status#INVALID_PARAMETER}),
 * nothing posted.
 *
 * <p>Every runtime has a default domain, in which {@link RdmaRuntime#register},
 * {@link RdmaRuntime#allocateMemoryWindow}, {@link RdmaRuntime#allocateFastRegion},
 * {@link RdmaRuntime#sharedReceiveQueue} and connections that name none are made.
 * {@link RdmaRuntime#protectionDomain()} creates another, e.g. one per untrusted peer or tenant, so that a token handed
 * to one is useless to every other. The methods below work as the runtime's of the same name, in this domain.
 * Thread-safe.
 */
public interface ProtectionDomain extends AutoCloseable {
    /**
     * Registers {@code buffer}'s bytes from position to limit in this domain; as {@link RdmaRuntime#register}.
     *
     * @throws RdmaException as {@link RdmaRuntime#register}; {@link Status#INVALID_DEVICE_STATE} when the domain is
     *                       closed
     */
    MemoryRegion register(ByteBuffer buffer, Access... access);

    /**
     * Allocates an unbound memory window in this domain; as {@link RdmaRuntime#allocateMemoryWindow()}.
     *
     * @throws RdmaException as there; {@link Status#INVALID_DEVICE_STATE} when the domain is closed
     */
    MemoryWindow allocateMemoryWindow();

    /**
     * Allocates a fast-register region slot in this domain; as {@link RdmaRuntime#allocateFastRegion()}.
     *
     * @throws RdmaException as there; {@link Status#INVALID_DEVICE_STATE} when the domain is closed
     */
    FastRegion allocateFastRegion();

    /**
     * Creates a shared receive queue in this domain; as {@link RdmaRuntime#sharedReceiveQueue(int, int)}. Only
     * connections of this domain may take their receives from it.
     *
     * @throws RdmaException as there; {@link Status#INVALID_DEVICE_STATE} when the domain is closed
     */
    SharedReceiveQueue sharedReceiveQueue(int depth, int maxSge);

    /** Whether {@link #close()} succeeded, or the runtime closed. */
    boolean isClosed();

    /**
     * Releases the domain (NDK closes a PD only when nothing is left in it). Connections opened in it may still be
     * up; they end on their own, and a new one cannot be opened in it. Idempotent.
     *
     * @throws RdmaException {@link Status#INVALID_DEVICE_STATE} while a region, window, slot or shared receive queue
     *                       made in it is open (the message counts them)
     */
    @Override
    void close();
}
