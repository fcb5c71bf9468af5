package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.util.EnumSet;
import java.util.Objects;

/** The checks of a memory window and the rights it is bound with. */
final class Windows {
    private Windows() {
    }

    /** {@code window} as this runtime's own, open type; NOT_SUPPORTED where the adapter binds none. */
    static MemoryWindowImpl check(RuntimeOwner runtime, MemoryWindow window) {
        if (!runtime.adapterInfo().isMemoryWindowSupported()) {
            throw unsupported(runtime);
        }
        Objects.requireNonNull(window, "window");
        if (!(window instanceof MemoryWindowImpl impl) || !impl.belongsTo(runtime)) {
            throw new RdmaException(Status.INVALID_PARAMETER, window + " does not belong to this runtime");
        }
        if (impl.isClosed()) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, "the memory window was closed");
        }
        return impl;
    }

    static RdmaException unsupported(RuntimeOwner runtime) {
        return new RdmaException(Status.NOT_SUPPORTED, runtime.adapterInfo().deviceName()
                + " binds no memory windows (AdapterInfo.isMemoryWindowSupported)");
    }

    /** The BIND_REMOTE_* bits of {@code rights}: remote rights only, at least one, each granted by {@code region}. */
    static int rightsBits(MemoryRegion region, Access[] rights) {
        EnumSet<Access> asked = Validation.accessRights(rights);
        if (asked.isEmpty() || asked.contains(Access.LOCAL_WRITE)) {
            throw new RdmaException(Status.INVALID_PARAMETER, "a window grants REMOTE_READ and/or REMOTE_WRITE, not "
                    + asked);
        }
        if (!region.access().containsAll(asked)) {
            throw new RdmaException(Status.ACCESS_VIOLATION, "the region grants " + region.access()
                    + "; a window over it cannot grant " + asked);
        }
        return (asked.contains(Access.REMOTE_READ) ? WorkRequest.BIND_REMOTE_READ : 0)
                | (asked.contains(Access.REMOTE_WRITE) ? WorkRequest.BIND_REMOTE_WRITE : 0);
    }
}
