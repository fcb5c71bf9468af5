package dev.rdmafutures.providerkit;

import dev.rdmafutures.spi.SharedAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The local addresses a device's shared endpoints hold, so that a listener never binds a shared port (NDK:
 * SHARING_VIOLATION), which the operating system would otherwise allow next to an unconnected REUSEADDR socket
 * or CM id. Every provider keeps one per device and hands out its reservations through {@link #hold}. Thread-safe.
 */
public final class SharedPorts {
    private final Set<InetSocketAddress> held = ConcurrentHashMap.newKeySet();

    /**
     * Records {@code bound}, an address a provider's anchor (an unconnected REUSEADDR socket, a bound CM id) now
     * holds, and returns the reservation: closing it runs {@code releaseAnchor}, then forgets the address, once.
     */
    public SharedAddress hold(InetSocketAddress bound, Runnable releaseAnchor) {
        held.add(bound);
        return new Reservation(bound, releaseAnchor);
    }

    /** Whether binding {@code address} would take a shared endpoint's port (wildcards overlap everything). */
    public boolean overlaps(InetSocketAddress address) {
        if (address.getPort() == 0) {
            return false;
        }
        for (InetSocketAddress shared : held) {
            if (shared.getPort() == address.getPort()
                    && (shared.getAddress().isAnyLocalAddress() || address.getAddress().isAnyLocalAddress()
                        || shared.getAddress().equals(address.getAddress()))) {
                return true;
            }
        }
        return false;
    }

    /** One held address; the provider's anchor is released with it. */
    private final class Reservation implements SharedAddress {
        private final InetSocketAddress address;
        private final Runnable releaseAnchor;
        private final AtomicBoolean closed = new AtomicBoolean();

        Reservation(InetSocketAddress address, Runnable releaseAnchor) {
            this.address = address;
            this.releaseAnchor = releaseAnchor;
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                try {
                    releaseAnchor.run();
                } finally {
                    held.remove(address);
                }
            }
        }

        @Override
        public String toString() {
            return "SharedAddress[" + address + (closed.get() ? ", closed" : "") + "]";
        }
    }
}
