package dev.rdmafutures.spi;

/**
 * A validated data-path operation handed to a provider: local bounds and access are checked, remote bounds are
 * within the remote buffer the caller named. Immutable.
 *
 * @param kind          what to do
 * @param local         the local region
 * @param localOffset   first byte in {@code local}
 * @param length        bytes to move (for a receive: the buffer's size)
 * @param remoteAddress the peer's tagged address (reads and writes)
 * @param remoteToken   the peer's token (reads, writes; the token to invalidate for SEND_INVALIDATE)
 * @param flags         a bit set of {@link #SILENT_SUCCESS}, {@link #READ_FENCE}, {@link #LOCAL_INVALIDATE},
 *                      {@link #DEFER}
 * @param completion    where the outcome goes
 */
public record WorkRequest(Kind kind, ProviderRegion local, int localOffset, int length, long remoteAddress,
                          int remoteToken, int flags, WorkCompletion completion) {
    /** Operation kinds. */
    public enum Kind {
        /** RDMA Read into local. */
        READ,
        /** RDMA Write from local. */
        WRITE,
        /** Send from local. */
        SEND,
        /** Send from local, invalidating the peer's region {@code remoteToken}. */
        SEND_INVALIDATE,
        /** A posted receive buffer. */
        RECEIVE
    }

    /** No completion of its own on success; completes with the next signalled one. */
    public static final int SILENT_SUCCESS = 1;
    /** Waits for earlier reads. */
    public static final int READ_FENCE = 2;
    /** Invalidates the local region after a read. */
    public static final int LOCAL_INVALIDATE = 4;
    /** May be held until the next request without this flag. */
    public static final int DEFER = 8;

    /** Whether {@code flag} is set. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
