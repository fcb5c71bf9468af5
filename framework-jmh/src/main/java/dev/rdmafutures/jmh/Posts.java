package dev.rdmafutures.jmh;

import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.Status;

/**
 * What the benchmarks' callback-form posts share: the local sides they post, built once, and what they do with the
 * {@link Status} a post returns. A {@link RegionSlice} is an object, so one made per operation would be garbage per
 * operation; a post that is refused says so by its status, and a benchmark's post must not be refused.
 */
final class Posts {
    private Posts() {
    }

    /** {@code region} cut into {@code count} slices of {@code size} bytes, slot {@code i} from {@code i * size}. */
    static RegionSlice[] slots(MemoryRegion region, int count, int size) {
        return slots(region, count, size, size);
    }

    /** {@code count} slices of {@code length} bytes of {@code region}, slot {@code i} from {@code i * stride}. */
    static RegionSlice[] slots(MemoryRegion region, int count, int stride, int length) {
        RegionSlice[] slots = new RegionSlice[count];
        for (int i = 0; i < count; i++) {
            slots[i] = region.slice(i * stride, length);
        }
        return slots;
    }

    /** Throws unless {@code status} says the post was accepted; allocates nothing when it was. */
    static void check(Status status, String operation) {
        if (status != Status.SUCCESS) {
            throw new IllegalStateException(operation + " refused: " + status);
        }
    }

    /**
     * A refused post as the failure a callback would have reported, for a load that collects its operations'
     * failures and throws the first: thrown from inside a completion callback, an exception only reaches the
     * runtime's error log, and the load would wait for an operation that was never posted.
     */
    static RdmaException refusal(Status status, String operation) {
        return new RdmaException(status, operation + " refused: " + status);
    }
}
