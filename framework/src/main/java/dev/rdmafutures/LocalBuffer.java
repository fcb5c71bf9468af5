package dev.rdmafutures;

/**
 * The local side of a data-path operation: the bytes a READ or RECEIVE fills, or a WRITE or SEND carries. One of
 * three shapes, all checked against their regions when created:
 * <ul>
 *   <li>a whole {@link MemoryRegion};</li>
 *   <li>a {@link RegionSlice}, {@code length} bytes of one region from {@code offset}
 *       ({@link MemoryRegion#slice(int, int)});</li>
 *   <li>a {@link ScatterGatherList} of several slices, scattered or gathered in order (NDK's {@code NDK_SGE}
 *       array).</li>
 * </ul>
 * A post reads the shape when it is made and keeps nothing of it, so a slice or list may be reused at once. Create
 * them once and reuse them to keep the callback path free of allocation.
 */
public sealed interface LocalBuffer permits MemoryRegion, RegionSlice, ScatterGatherList {
}
