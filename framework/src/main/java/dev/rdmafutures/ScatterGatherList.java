package dev.rdmafutures;

import java.util.Arrays;
import java.util.Objects;

/**
 * The local side of one operation as 1..N segments (region, offset, length): NDK's {@code NDK_SGE} array. A READ or a
 * RECEIVE scatters what arrives over the segments in order; a WRITE or a SEND gathers them in order into one message.
 *
 * <p>Reusable and allocation-free: {@link #add} checks each segment against its region at once, a post copies the
 * segments, and {@link #clear()} readies the list for the next operation, so one list serves a stream of operations.
 * The number of segments an operation may carry is the connection's granted
 * {@link QueueDepths#initiatorSge()} (READ, WRITE, SEND) or {@link QueueDepths#receiveSge()} (RECEIVE); a post with
 * more fails with {@link Status#INVALID_PARAMETER} and nothing is posted. An empty list is a zero-length operation.
 * Not thread-safe.
 */
public final class ScatterGatherList implements LocalBuffer {
    /** The largest capacity a list may have. */
    public static final int MAX_CAPACITY = 1024;

    private final MemoryRegion[] regions;
    private final int[] offsets;
    private final int[] lengths;
    private int size;
    private long totalLength;

    /**
     * An empty list with room for {@code capacity} segments.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} unless 1..{@value #MAX_CAPACITY}
     */
    public ScatterGatherList(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new RdmaException(Status.INVALID_PARAMETER, "a scatter-gather list holds 1.." + MAX_CAPACITY
                    + " segments, not " + capacity);
        }
        this.regions = new MemoryRegion[capacity];
        this.offsets = new int[capacity];
        this.lengths = new int[capacity];
    }

    /** A one-segment list. */
    public static ScatterGatherList of(MemoryRegion region, int offset, int length) {
        return new ScatterGatherList(1).add(region, offset, length);
    }

    /**
     * Appends {@code length} bytes of {@code region} from {@code offset}.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for a negative offset or length, a full list or a total
     *                       beyond {@link Integer#MAX_VALUE} bytes; {@link Status#ACCESS_VIOLATION} when the segment
     *                       reaches outside the region. The list is unchanged.
     */
    public ScatterGatherList add(MemoryRegion region, int offset, int length) {
        RegionSlice.checkSpan(region, offset, length);
        if (size == regions.length) {
            throw new RdmaException(Status.INVALID_PARAMETER, "this list is full (" + regions.length
                    + " segments); clear() it or create a larger one");
        }
        if (totalLength + length > Integer.MAX_VALUE) {
            throw new RdmaException(Status.INVALID_PARAMETER, "an operation moves at most " + Integer.MAX_VALUE
                    + " bytes");
        }
        regions[size] = region;
        offsets[size] = offset;
        lengths[size] = length;
        size++;
        totalLength += length;
        return this;
    }

    /** Removes every segment, keeping the capacity. */
    public ScatterGatherList clear() {
        Arrays.fill(regions, 0, size, null);
        size = 0;
        totalLength = 0;
        return this;
    }

    /** The number of segments. */
    public int size() {
        return size;
    }

    /** How many segments the list can hold. */
    public int capacity() {
        return regions.length;
    }

    /** The bytes of all segments together. */
    public int totalLength() {
        return (int) totalLength;
    }

    /** Segment {@code index}'s region. */
    public MemoryRegion region(int index) {
        return regions[Objects.checkIndex(index, size)];
    }

    /** Segment {@code index}'s first byte in its region. */
    public int offset(int index) {
        return offsets[Objects.checkIndex(index, size)];
    }

    /** Segment {@code index}'s length. */
    public int length(int index) {
        return lengths[Objects.checkIndex(index, size)];
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("ScatterGatherList[");
        for (int i = 0; i < size; i++) {
            s.append(i == 0 ? "" : ", ").append('+').append(offsets[i]).append(':').append(lengths[i]);
        }
        return s.append("]").toString();
    }
}
