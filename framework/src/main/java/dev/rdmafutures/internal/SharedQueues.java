package dev.rdmafutures.internal;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import java.util.Objects;

/** The checks of a shared receive queue named at connect or accept. */
final class SharedQueues {
    private SharedQueues() {
    }

    /** {@code queue} as this runtime's own type. */
    static SharedReceiveQueueImpl check(RuntimeOwner runtime, SharedReceiveQueue queue) {
        Objects.requireNonNull(queue, "queue");
        if (!(queue instanceof SharedReceiveQueueImpl impl) || !impl.belongsTo(runtime)) {
            throw new RdmaException(Status.INVALID_PARAMETER, queue + " does not belong to this runtime");
        }
        if (impl.isClosed()) {
            throw closed(impl);
        }
        return impl;
    }

    /** A connection of {@code domain} may take its receives only from a queue of that domain (or its own). */
    static void checkDomain(SharedReceiveQueueImpl queue, DomainImpl domain) {
        if (queue != null && queue.domain() != domain) {
            throw new RdmaException(Status.INVALID_PARAMETER, queue + " belongs to " + queue.domain()
                    + "; a connection of " + domain + " cannot take its receives from it");
        }
    }

    static RdmaException closed(SharedReceiveQueueImpl queue) {
        return new RdmaException(Status.INVALID_DEVICE_STATE, queue + " is closed");
    }
}
