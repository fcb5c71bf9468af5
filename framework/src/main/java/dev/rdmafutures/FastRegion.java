package dev.rdmafutures;

/**
 * A fast-register region (NDK's {@code NdkCreateMr} with fast registration requested): a slot that {@link RdmaConnection#fastRegister}
 * ({@code NdkFastRegister}) fills with a registration of a buffer through a connection's initiator queue, ordered
 * with its other operations, each time with a new token. The registration is a {@link MemoryRegion} like any other
 * until it is revoked: by {@link RdmaConnection#invalidate(FastRegion)} ({@code NdkInvalidate}), by a READ with
 * {@link OperationFlags#RDMA_READ_LOCAL_INVALIDATE} whose first segment it is, by a peer's Send with Invalidate of
 * its token, by its {@link MemoryRegion#deregister()}, or by the slot's next registration. From
 * {@link RdmaRuntime#allocateFastRegion()}; where {@link AdapterInfo#isFastRegisterSupported()} is false every call
 * fails with {@link Status#NOT_SUPPORTED}. Thread-safe.
 */
public interface FastRegion extends AutoCloseable {
    /** Whether a registration made in this slot is in force. */
    boolean isRegistered();

    /** Releases the slot ({@code NdkCloseMr}), revoking a registration in force first. Idempotent. */
    @Override
    void close();
}
