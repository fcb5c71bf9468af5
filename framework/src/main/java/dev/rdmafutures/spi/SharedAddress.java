package dev.rdmafutures.spi;

import java.net.InetSocketAddress;

/** A reserved local address that connects may share. Thread-safe. */
public interface SharedAddress {
    /** The reserved address with its actual port. */
    InetSocketAddress localAddress();

    /** Releases the reservation; idempotent. */
    void close();
}
