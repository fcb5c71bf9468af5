package dev.rdmafutures.internal.poller;

import java.net.InetAddress;

/** Where a poller reports the faults its event loop saw peers make: the runtime's count per peer address. */
@FunctionalInterface
public interface PeerFaultSink {
    /** {@code address}'s peer made a fault at {@code nanoTime} on the runtime's ticker. Thread-safe. */
    void fault(InetAddress address, long nanoTime);
}
