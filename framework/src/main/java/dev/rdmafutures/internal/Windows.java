package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.FastRegion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Objects;

/** The checks of a memory window and the rights it is bound with, and of a fast-register slot and its buffer. */
final class Windows {
    private Windows() {
    }

    /**
     * {@code window} as an open window of {@code domain}'s runtime and of {@code domain} itself: NOT_SUPPORTED where the
     * adapter binds none, INVALID_PARAMETER for another runtime's, INVALID_DEVICE_STATE for a closed one,
     * ACCESS_VIOLATION for another domain's.
     */
    static MemoryWindowImpl check(DomainImpl domain, MemoryWindow window) {
        RuntimeOwner runtime = domain.owner();
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
        if (impl.domain() != domain) {
            throw otherDomain(window, impl.domain(), domain);
        }
        return impl;
    }

    /** {@code slot} checked as {@link #check(DomainImpl, MemoryWindow)} checks a window. */
    static FastRegionImpl check(DomainImpl domain, FastRegion slot) {
        RuntimeOwner runtime = domain.owner();
        if (!runtime.adapterInfo().isFastRegisterSupported()) {
            throw fastRegisterUnsupported(runtime);
        }
        Objects.requireNonNull(slot, "slot");
        if (!(slot instanceof FastRegionImpl impl) || !impl.belongsTo(runtime)) {
            throw new RdmaException(Status.INVALID_PARAMETER, slot + " does not belong to this runtime");
        }
        if (impl.isClosed()) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, "the fast-register region was closed");
        }
        if (impl.domain() != domain) {
            throw otherDomain(slot, impl.domain(), domain);
        }
        return impl;
    }

    private static RdmaException otherDomain(Object what, DomainImpl its, DomainImpl connections) {
        return new RdmaException(Status.ACCESS_VIOLATION, what + " belongs to " + its + ", not to the connection's "
                + connections);
    }

    static RdmaException fastRegisterUnsupported(RuntimeOwner runtime) {
        return new RdmaException(Status.NOT_SUPPORTED, runtime.adapterInfo().deviceName()
                + " has no fast registration (AdapterInfo.isFastRegisterSupported)");
    }

    /**
     * {@code slot}'s registration of {@code bytes} (position to limit) with {@code access}, checked as
     * {@code RdmaRuntime.register} checks a buffer, and not valid until its FAST_REGISTER request takes effect.
     */
    static MemoryRegionImpl prepare(RuntimeOwner runtime, FastRegionImpl slot, ByteBuffer bytes, Access[] access) {
        EnumSet<Access> rights = Validation.bufferRights(bytes, access);
        return new MemoryRegionImpl(slot.domain(), slot.provider().prepare(bytes.slice(), rights));
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
