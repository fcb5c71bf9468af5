package dev.rdmafutures.spi;

import dev.rdmafutures.DisconnectReason;

/** The lifecycle of an established connection, reported by its provider on the poller thread. */
public interface ConnectionEvents {
    /** The connection ended; called exactly once, after which its resources are released. */
    void onDisconnected(DisconnectReason reason);
}
