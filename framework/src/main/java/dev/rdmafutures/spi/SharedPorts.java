package dev.rdmafutures.spi;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local addresses a runtime's shared endpoints hold, so that a listener never binds a shared port (NDK:
 * SHARING_VIOLATION), which the operating system would otherwise allow next to an unconnected REUSEADDR socket
 * or CM id. Thread-safe.
 */
public final class SharedPorts {
    private final Set<InetSocketAddress> held = ConcurrentHashMap.newKeySet();

    /** Records a shared endpoint's bound address. */
    public void add(InetSocketAddress bound) {
        held.add(bound);
    }

    /** Forgets it when the endpoint closes. */
    public void remove(InetSocketAddress bound) {
        held.remove(bound);
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
}
