package dev.rdmafutures.internal;

import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlag;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.WorkRequest;
import java.util.Objects;

/** Checks of data-path arguments for {@link WorkRequest}s; each failure names what is wrong. */
final class DataPath {
    private DataPath() {
    }

    /** Checks the local side; returns the region as the runtime's own type. */
    static MemoryRegionImpl local(RuntimeOwner runtime, MemoryRegion local, int offset, int length,
                                  boolean needsLocalWrite) {
        Objects.requireNonNull(local, "local region");
        if (!(local instanceof MemoryRegionImpl region) || !region.belongsTo(runtime)) {
            throw new RdmaException(Status.ACCESS_VIOLATION, local + " was not registered with this runtime");
        }
        if (offset < 0 || length < 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, "negative offset or length: " + offset + ", " + length);
        }
        if ((long) offset + length > region.length()) {
            throw new RdmaException(Status.ACCESS_VIOLATION, "[" + offset + ", +" + length
                    + ") is outside the local region of " + region.length() + " bytes");
        }
        if (!region.isValid()) {
            throw new RdmaException(Status.ACCESS_VIOLATION, local + " is deregistered or invalidated");
        }
        if (needsLocalWrite && !region.allowsLocalWrite()) {
            throw new RdmaException(Status.ACCESS_VIOLATION, local + " lacks LOCAL_WRITE, which this operation "
                    + "needs to place data");
        }
        return region;
    }

    static int flagBits(OperationFlag[] flags) {
        int bits = 0;
        for (OperationFlag f : Objects.requireNonNull(flags, "flags")) {
            bits |= switch (Objects.requireNonNull(f, "flag")) {
                case SILENT_SUCCESS -> WorkRequest.SILENT_SUCCESS;
                case READ_FENCE -> WorkRequest.READ_FENCE;
                case RDMA_READ_LOCAL_INVALIDATE -> WorkRequest.LOCAL_INVALIDATE;
                case DEFER -> WorkRequest.DEFER;
            };
        }
        return bits;
    }
}
