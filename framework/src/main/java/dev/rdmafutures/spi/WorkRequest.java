package dev.rdmafutures.spi;

/**
 * A validated data-path operation handed to a provider: local bounds and access are checked, remote bounds are
 * within the remote buffer the caller named.
 *
 * <p>A request belongs to the provider from {@link ProviderConnection#post} until the provider reports its outcome
 * to {@link #completion()}; the core may reuse the object after that, so a provider keeps no reference to it past
 * that call (NDK's request contexts work the same way). Fields never change while the provider holds it. The core's
 * operation object is its own request, so posting allocates no request of its own.
 */
public abstract class WorkRequest {
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

    private Kind kind;
    private ProviderRegion local;
    private int localOffset;
    private int length;
    private long remoteAddress;
    private int remoteToken;
    private int flags;

    /** An empty request; {@link #set} fills it in before each post. */
    protected WorkRequest() {
    }

    /**
     * Fills in the operation (core only, before handing the request to the poller).
     *
     * @param kind          what to do
     * @param local         the local region
     * @param localOffset   first byte in {@code local}
     * @param length        bytes to move (for a receive: the buffer's size)
     * @param remoteAddress the peer's tagged address (reads and writes)
     * @param remoteToken   the peer's token (reads, writes; the token to invalidate for SEND_INVALIDATE)
     * @param flags         a bit set of {@link #SILENT_SUCCESS}, {@link #READ_FENCE}, {@link #LOCAL_INVALIDATE},
     *                      {@link #DEFER}
     * @return this request
     */
    public WorkRequest set(Kind kind, ProviderRegion local, int localOffset, int length, long remoteAddress,
                           int remoteToken, int flags) {
        this.kind = kind;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.remoteAddress = remoteAddress;
        this.remoteToken = remoteToken;
        this.flags = flags;
        return this;
    }

    /** Adds flag bits (core only, before the post): a batch defers all but its last request. */
    public void addFlags(int bits) {
        flags |= bits;
    }

    /** What to do. */
    public Kind kind() {
        return kind;
    }

    /** The local region. */
    public ProviderRegion local() {
        return local;
    }

    /** First byte in {@link #local()}. */
    public int localOffset() {
        return localOffset;
    }

    /** Bytes to move; for a receive, the buffer's size. */
    public int length() {
        return length;
    }

    /** The peer's tagged address (reads and writes). */
    public long remoteAddress() {
        return remoteAddress;
    }

    /** The peer's token (reads and writes; the token to invalidate for SEND_INVALIDATE). */
    public int remoteToken() {
        return remoteToken;
    }

    /** The flag bits. */
    public int flags() {
        return flags;
    }

    /** Where the outcome goes: exactly one call, on the poller thread. */
    public abstract WorkCompletion completion();

    /** Whether {@code flag} is set. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    @Override
    public String toString() {
        return "WorkRequest[" + kind + ", " + length + " bytes, flags=" + flags + "]";
    }
}
