package dev.rdmafutures.spi;

/**
 * A provider's memory window, from {@link ProviderDomain#allocateWindow()}: bound and invalidated by
 * {@link WorkRequest.Kind#BIND_WINDOW} and {@link WorkRequest.Kind#INVALIDATE_WINDOW} requests on a connection, or
 * invalidated by a peer's Send with Invalidate naming its token. Thread-safe accessors.
 */
public interface ProviderWindow {
    /** The token of the current or last binding; 0 before the first. */
    int token();

    /** The address a peer names the bound span's first byte with (0 for zero-based offsets). */
    long remoteBase();

    /** Whether the window is bound and its token valid. */
    boolean isBound();

    /** Releases the window, revoking a bound token first; idempotent. Called on any thread. */
    void close();
}
