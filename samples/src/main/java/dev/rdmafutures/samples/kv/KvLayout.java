package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Where things live in the server's regions, the same for the RDMA service and its TCP twin; a client rebuilds it
 * from the {@link Bootstrap}'s capacity and largest value.
 *
 * <p>The <b>index</b> is an open-addressing hash table of {@code capacity} {@link IndexSlot slots} (linear probing,
 * never more than half full, never deleted from): a key's slot is at or after its {@link #home(long) home}, before
 * the first empty slot. A client reads {@value #NEIGHBOURHOOD} slots at a time, so one READ nearly always finds the
 * key; a key never moves, so once a client found it, it reads that one slot ({@link SlotCache}).
 *
 * <p>Values of at most {@value #INLINE_MAX} bytes live <b>inline</b> in their slot (FaRM): the slot CRC covers the
 * value too, a PUT rewrites the slot in place, and a GET is that one READ. At the bound a neighbourhood READ (a
 * key's first GET) moves 8.4 KB, which on a 100 Gb/s adapter takes less time than the round trip it saves (~0.7 us
 * against ~2 us; on soft over loopback 1 KiB measured about even with two READs); beyond it each first GET would
 * move ever more of its neighbours' values for the one it wants (at bin/kv's largest value, 1 MiB, 8 MiB), and every
 * index slot would be as large. Larger values live in a <b>heap</b> instead, two extents per key of
 * {@link #extentBytes()} bytes, each a {@link ValueRecord}: a PUT writes the extent the slot does not point to and
 * then the slot, so a reader that saw the old slot still finds the old record intact, and one that mixed old and new
 * bytes fails a checksum. A GET is then two READs.
 *
 * @param capacity the number of index slots, a power of two
 * @param maxValue the largest value in bytes
 */
record KvLayout(int capacity, int maxValue) {
    /** Slots one index READ covers. */
    static final int NEIGHBOURHOOD = 8;
    /** The largest value kept inline in its index slot. */
    static final int INLINE_MAX = 1024;

    KvLayout {
        if (capacity < NEIGHBOURHOOD || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("the index needs a power of two of at least " + NEIGHBOURHOOD
                    + " slots: " + capacity);
        }
        if (maxValue < ValueContent.MIN_LENGTH) {
            throw new IllegalArgumentException("values need at least " + ValueContent.MIN_LENGTH + " bytes");
        }
        long bytes = (long) capacity * slotBytes(maxValue);
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(capacity + " slots for values of " + maxValue + " B need " + bytes
                    + " bytes of index, more than one region holds");
        }
    }

    /** The layout for at most {@code maxKeys} keys: at least twice as many slots, so the index stays half empty. */
    static KvLayout forKeys(int maxKeys, int maxValue) {
        if (maxKeys < 1 || maxKeys > 1 << 26) {
            throw new IllegalArgumentException("keys must be 1.." + (1 << 26) + ": " + maxKeys);
        }
        return new KvLayout(Math.max(NEIGHBOURHOOD, Integer.highestOneBit(maxKeys * 2 - 1) << 1), maxValue);
    }

    /** Whether values live in their index slots (one READ per GET) rather than in the heap. */
    boolean inline() {
        return maxValue <= INLINE_MAX;
    }

    /** The room a slot has for its value: {@link #maxValue()} inline, 0 when values live in the heap. */
    int inlineBytes() {
        return inline() ? maxValue : 0;
    }

    /** One slot: its header and, inline, room for the largest value, rounded up to 8 bytes. */
    int slotBytes() {
        return slotBytes(maxValue);
    }

    /** The index's size in bytes. */
    int indexBytes() {
        return capacity * slotBytes();
    }

    /** One heap extent: a record header and room for the largest value, rounded up to 8 bytes. */
    int extentBytes() {
        return (ValueRecord.HEADER_BYTES + maxValue + 7) & ~7;
    }

    /** The heap's size in bytes for {@code maxKeys} keys: two extents per key, none when values are inline. */
    int heapBytes(int maxKeys) {
        long bytes = inline() ? 0 : 2L * maxKeys * extentBytes();
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(maxKeys + " keys of " + maxValue + " B need " + bytes
                    + " bytes of heap, more than one region holds");
        }
        return (int) bytes;
    }

    /** The first slot a key may occupy. */
    int home(long key) {
        return (int) (mix(key) & (capacity - 1));
    }

    /** What a GET costs in this layout, for the benchmark's header. */
    String describe() {
        return inline()
                ? String.format("values inline in %d-B index slots (up to %d B): one READ of %d slots over RDMA, "
                        + "of the key's slot once the client knows it; one request over TCP", slotBytes(), INLINE_MAX,
                        NEIGHBOURHOOD)
                : String.format("values over %d B in a heap, %d-B index slots: a READ of %d slots (of the key's slot "
                        + "once the client knows it) and one of the record over RDMA, one request over TCP",
                        INLINE_MAX, slotBytes(), NEIGHBOURHOOD);
    }

    private static int slotBytes(int maxValue) {
        return maxValue <= INLINE_MAX ? (IndexSlot.HEADER_BYTES + maxValue + 7) & ~7 : IndexSlot.HEADER_BYTES;
    }

    /** A 64-bit finaliser (SplitMix64's): spreads consecutive keys over the table. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * Adds {@code length} bytes of {@code buffer} from {@code at} to {@code crc}, leaving the buffer's position and
     * limit as they were (the buffer is the caller's own view; nothing is allocated).
     */
    static void update(CRC32C crc, ByteBuffer buffer, int at, int length) {
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(at + length).position(at);
        crc.update(buffer);
        buffer.limit(limit).position(position);
    }
}
