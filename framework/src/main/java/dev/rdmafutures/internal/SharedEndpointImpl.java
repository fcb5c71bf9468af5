package dev.rdmafutures.internal;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.SharedEndpoint;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.SharedAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A shared endpoint: the provider's reserved address plus the destinations connected or connecting from it. */
final class SharedEndpointImpl implements SharedEndpoint {
    private final RuntimeOwner owner;
    private final SharedAddress address;
    private final Set<InetSocketAddress> destinations = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    SharedEndpointImpl(RuntimeOwner owner, SharedAddress address) {
        this.owner = owner;
        this.address = address;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address.localAddress();
    }

    /** Claims {@code destination}; returns the error when it cannot be claimed, null when it was. */
    RdmaException reserve(InetSocketAddress destination) {
        if (closed) {
            return new RdmaException(Status.INVALID_DEVICE_STATE, "shared endpoint " + localAddress() + " is closed");
        }
        if (!destinations.add(destination)) {
            return new RdmaException(Status.ADDRESS_ALREADY_EXISTS, "shared endpoint " + localAddress()
                    + " already has a connection to " + destination);
        }
        return null;
    }

    boolean belongsTo(RuntimeOwner runtime) {
        return owner == runtime;
    }

    SharedAddress address() {
        return address;
    }

    void release(InetSocketAddress destination) {
        destinations.remove(destination);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            address.close();
            owner.untrack(this);
        }
    }

    @Override
    public String toString() {
        return "SharedEndpoint[" + localAddress() + ", " + destinations.size() + " destinations]";
    }
}
