package dev.rdmafutures;

/**
 * The outcome of an RDMA request, one constant per NTSTATUS that NDK / Network Direct defines for it:
 * {@link #SUCCESS} when a post was accepted (the callback forms of {@link RdmaConnection} return it), every other
 * constant a failure.
 *
 * <p>{@link #ntstatus()} gives the Windows NTSTATUS value for cross-reference with NDK documentation;
 * {@link #isRetryable()} tells whether NDK documents the failure as one a connection attempt may retry.
 */
public enum Status {
    /**
     * The request was accepted ({@code STATUS_SUCCESS}): returned by a post, never carried by an
     * {@link RdmaException} nor counted as a failure.
     */
    SUCCESS(0x0L, false),
    /** Not enough memory, descriptors or queue entries to carry out the request ({@code STATUS_INSUFFICIENT_RESOURCES}). */
    INSUFFICIENT_RESOURCES(0xC000009AL, false),
    /** The remote network was not reachable ({@code STATUS_NETWORK_UNREACHABLE}); retryable. */
    NETWORK_UNREACHABLE(0xC000023CL, true),
    /** The remote host was not reachable ({@code STATUS_HOST_UNREACHABLE}); retryable. */
    HOST_UNREACHABLE(0xC000023DL, true),
    /** No listener, a full backlog, or the peer rejected the request ({@code STATUS_CONNECTION_REFUSED}); retryable. */
    CONNECTION_REFUSED(0xC0000236L, true),
    /** A deadline passed before the request completed ({@code STATUS_IO_TIMEOUT}); retryable. */
    IO_TIMEOUT(0xC00000B5L, true),
    /** The local address is already in use ({@code STATUS_SHARING_VIOLATION}). */
    SHARING_VIOLATION(0xC0000043L, false),
    /** The local address is not an address of this adapter ({@code STATUS_INVALID_ADDRESS}). */
    INVALID_ADDRESS(0xC0000141L, false),
    /** Port 0 was given and no ephemeral port was left ({@code STATUS_TOO_MANY_ADDRESSES}). */
    TOO_MANY_ADDRESSES(0xC0000209L, false),
    /** A connection with the same local and remote address and port exists ({@code STATUS_ADDRESS_ALREADY_EXISTS}). */
    ADDRESS_ALREADY_EXISTS(0xC000020AL, false),
    /** The endpoint is already connected or connecting ({@code STATUS_CONNECTION_ACTIVE}). */
    CONNECTION_ACTIVE(0xC000023BL, false),
    /** The request was cancelled, or flushed by a disconnect or a close ({@code STATUS_CANCELLED}). */
    CANCELED(0xC0000120L, false),
    /** Private data longer than the adapter allows ({@code STATUS_BUFFER_OVERFLOW}). */
    BUFFER_OVERFLOW(0x80000005L, false),
    /** The connecting peer abandoned the connection establishment ({@code STATUS_CONNECTION_ABORTED}). */
    CONNECTION_ABORTED(0xC0000241L, false),
    /** The connection was reset by the peer or the network ({@code STATUS_CONNECTION_RESET}). */
    CONNECTION_RESET(0xC000020DL, false),
    /** The connection is not connected ({@code STATUS_CONNECTION_INVALID}). */
    CONNECTION_INVALID(0xC000023AL, false),
    /** The remote buffer is too small or not large enough for the request ({@code STATUS_REMOTE_RESOURCES}). */
    REMOTE_RESOURCES(0xC000013DL, false),
    /** A memory token was wrong, revoked, or lacked the access right ({@code STATUS_ACCESS_VIOLATION}). */
    ACCESS_VIOLATION(0xC0000005L, false),
    /** The peer sent something the protocol does not allow ({@code STATUS_INVALID_NETWORK_RESPONSE}). */
    INVALID_NETWORK_RESPONSE(0xC00000C3L, false),
    /** The peer asked for a protocol feature this provider does not implement ({@code STATUS_NOT_SUPPORTED}). */
    NOT_SUPPORTED(0xC00000BBL, false),
    /** An argument was out of range ({@code STATUS_INVALID_PARAMETER}). */
    INVALID_PARAMETER(0xC000000DL, false),
    /** The object is in a state that does not allow the request, e.g. closed or already accepted ({@code STATUS_INVALID_DEVICE_STATE}). */
    INVALID_DEVICE_STATE(0xC0000184L, false),
    /** The adapter or provider went away ({@code STATUS_DEVICE_REMOVED}). */
    DEVICE_REMOVED(0xC00002B6L, false);

    private final long ntstatus;
    private final boolean retryable;

    Status(long ntstatus, boolean retryable) {
        this.ntstatus = ntstatus;
        this.retryable = retryable;
    }

    /** The NTSTATUS value NDK uses for this outcome, as an unsigned 32-bit number. */
    public long ntstatus() {
        return ntstatus;
    }

    /** Whether NDK documents this outcome of a connect as one that may be retried. */
    public boolean isRetryable() {
        return retryable;
    }
}
