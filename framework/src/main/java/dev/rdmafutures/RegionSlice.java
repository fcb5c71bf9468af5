package dev.rdmafutures;

import java.util.Objects;

/**
 * {@code length} bytes of {@code region} from {@code offset}: the one-segment {@link LocalBuffer}. Immutable; from
 * {@link MemoryRegion#slice(int, int)} or this constructor, which check the span at once.
 *
 * @param region the registered region
 * @param offset the first byte, from the region's start
 * @param length the number of bytes; 0 makes a zero-length operation
 */
public record RegionSlice(MemoryRegion region, int offset, int length) implements LocalBuffer {
    /**
     * Checks the span.
     *
     * @throws NullPointerException for a null region
     * @throws RdmaException        {@link Status#INVALID_PARAMETER} for a negative offset or length,
     *                              {@link Status#ACCESS_VIOLATION} for a span outside the region
     */
    public RegionSlice {
        checkSpan(region, offset, length);
    }

    /** The checks of a span of a region, shared with {@link ScatterGatherList#add}: throws as the constructor does. */
    static void checkSpan(MemoryRegion region, int offset, int length) {
        Objects.requireNonNull(region, "region");
        if (offset < 0 || length < 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, "negative offset or length: " + offset + ", " + length);
        }
        if ((long) offset + length > region.length()) {
            throw new RdmaException(Status.ACCESS_VIOLATION, "[" + offset + ", +" + length
                    + ") is outside the region of " + region.length() + " bytes");
        }
    }
}
