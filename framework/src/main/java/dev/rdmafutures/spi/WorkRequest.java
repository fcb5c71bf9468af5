package dev.rdmafutures.spi;

/**
 * A validated data-path operation handed to a provider, read-only: every local segment's bounds and access are
 * checked, the segment count is within the granted maximum, remote bounds are within the remote buffer the caller
 * named.
 *
 * <p>A request belongs to the provider from {@link ProviderConnection#post} until the provider reports its outcome
 * to {@link #completion()}; the core may reuse the object after that, so a provider keeps no reference to it past
 * that call (NDK's request contexts work the same way). Its values never change while the provider holds it.
 */
public interface WorkRequest {
    /** Operation kinds. */
    enum Kind {
        /** RDMA Read into local. */
        READ,
        /** RDMA Write from local. */
        WRITE,
        /** Send from local. */
        SEND,
        /** Send from local, invalidating the peer's region {@code remoteToken}. */
        SEND_INVALIDATE,
        /** A posted receive buffer. */
        RECEIVE,
        /**
         * Binds {@link #window()} over segment 0 (region, offset, length) with the rights in {@link #flags()}
         * ({@link #BIND_REMOTE_READ}, {@link #BIND_REMOTE_WRITE}); completes with 0 bytes once the window's new
         * token is in force. An initiator-queue request, ordered with the others.
         */
        BIND_WINDOW,
        /**
         * Revokes {@link #window()}'s token: a window's binding, or a fast-register slot's registration. An
         * initiator-queue request; completes with 0 bytes.
         */
        INVALIDATE_WINDOW,
        /**
         * Puts segment 0's region, which {@link #window()} (a {@link ProviderFastRegion}) prepared, in force in that
         * slot, revoking the slot's earlier registration; completes with 0 bytes once it is. An initiator-queue
         * request, ordered with the others.
         */
        FAST_REGISTER
    }

    /** No completion of its own on success; completes with the next signalled one. */
    int SILENT_SUCCESS = 1;
    /** Waits for earlier reads. */
    int READ_FENCE = 2;
    /** Invalidates the first segment's region after a read. */
    int LOCAL_INVALIDATE = 4;
    /** May be held until the next request without this flag. */
    int DEFER = 8;
    /** BIND_WINDOW: the peer may read through the window. */
    int BIND_REMOTE_READ = 16;
    /** BIND_WINDOW: the peer may write through the window. */
    int BIND_REMOTE_WRITE = 32;

    /** What to do. */
    Kind kind();

    /**
     * The number of local segments, 0..the connection's (or shared receive queue's) granted maximum: a READ or a
     * RECEIVE scatters into them in order, a WRITE or a SEND gathers them in order. 0 is a zero-length operation.
     */
    int segmentCount();

    /** Segment {@code index}'s region. */
    ProviderRegion region(int index);

    /** Segment {@code index}'s first byte in its region. */
    int offset(int index);

    /** Segment {@code index}'s length. */
    int segmentLength(int index);

    /** Bytes to move: the segments' lengths together; for a receive, the room it offers. */
    int length();

    /** The peer's tagged address (reads and writes). */
    long remoteAddress();

    /** The peer's token (reads and writes; the token to invalidate for SEND_INVALIDATE). */
    int remoteToken();

    /**
     * The flag bits: {@link #SILENT_SUCCESS}, {@link #READ_FENCE}, {@link #LOCAL_INVALIDATE}, {@link #DEFER}, and
     * for BIND_WINDOW {@link #BIND_REMOTE_READ} and {@link #BIND_REMOTE_WRITE}.
     */
    int flags();

    /** Whether {@code flag} is set. */
    default boolean has(int flag) {
        return (flags() & flag) != 0;
    }

    /**
     * The window of a BIND_WINDOW or INVALIDATE_WINDOW request, or the fast-register slot of a FAST_REGISTER or
     * INVALIDATE_WINDOW request; null for the other kinds.
     */
    ProviderWindow window();

    /** Where the outcome goes: exactly one call, on the poller thread. */
    WorkCompletion completion();
}
