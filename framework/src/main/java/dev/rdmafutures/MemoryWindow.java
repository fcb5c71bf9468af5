package dev.rdmafutures;

/**
 * A memory window (NDK's {@code NDK_MW}, verbs type-2 windows, iWARP window STags): a token of its own over part of
 * a registered region, with rights that may be narrower than the region's. From
 * {@link RdmaRuntime#allocateMemoryWindow()}; bound by {@link RdmaConnection#bind} (NdkBind), revoked by
 * {@link RdmaConnection#invalidate(MemoryWindow)} (NdkInvalidate) or by the peer's Send with Invalidate naming
 * {@link #token()}. A bound window is reachable only through the connection it was bound on, and each bind gives it a
 * new token, so a peer holding an old one is refused. Thread-safe.
 */
public interface MemoryWindow extends AutoCloseable {
    /** Whether the window is bound and its token grants access now. */
    boolean isBound();

    /** The token of the current (or last) binding; 0 before the first bind. */
    int token();

    /**
     * What the peer addresses: the bound span of the region with this window's token.
     *
     * @throws RdmaException {@link Status#INVALID_DEVICE_STATE} when the window is not bound
     */
    RemoteBuffer remote();

    /** Releases the window (NdkCloseMw); a bound window's token is revoked first. Idempotent. */
    @Override
    void close();
}
