package dev.rdmafutures.spi;

import java.net.InetSocketAddress;

/** A bound listening address, not yet handed to an event loop. */
public interface BoundListener {
    /** The bound address. Thread-safe. */
    InetSocketAddress localAddress();

    /** Stops listening and releases the address. Thread-safe, idempotent. */
    void close();
}
