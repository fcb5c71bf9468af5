package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Where things live in the server's two regions, the same for the RDMA service and its TCP twin.
 *
 * <p>The <b>index</b> is an open-addressing hash table of {@link #capacity(int)} slots of {@value IndexSlot#BYTES}
 * bytes (linear probing, never more than half full, never deleted from): a key's slot is at or after its
 * {@link #home(long, int) home}, before the first empty slot. A client reads {@value #NEIGHBOURHOOD} slots at a time,
 * so one READ usually finds the key. The <b>heap</b> holds two extents per key of {@link #extentBytes(int)} bytes,
 * each a {@link ValueRecord}: a PUT writes the extent the slot does not point to and then the slot, so a reader that
 * saw the old slot still finds the old record intact, and one that mixed old and new bytes fails a checksum.
 */
final class KvLayout {
    /** Slots one index READ covers. */
    static final int NEIGHBOURHOOD = 8;

    private KvLayout() {
    }

    /** The number of index slots for at most {@code maxKeys} keys: a power of two, at least twice as many. */
    static int capacity(int maxKeys) {
        if (maxKeys < 1 || maxKeys > 1 << 26) {
            throw new IllegalArgumentException("keys must be 1.." + (1 << 26) + ": " + maxKeys);
        }
        return Math.max(NEIGHBOURHOOD, Integer.highestOneBit(maxKeys * 2 - 1) << 1);
    }

    /** The index's size in bytes. */
    static int indexBytes(int maxKeys) {
        return capacity(maxKeys) * IndexSlot.BYTES;
    }

    /** One extent: a record header and room for the largest value, rounded up to 8 bytes. */
    static int extentBytes(int maxValue) {
        return (ValueRecord.HEADER_BYTES + maxValue + 7) & ~7;
    }

    /** The heap's size in bytes: two extents per key. */
    static int heapBytes(int maxKeys, int maxValue) {
        long bytes = 2L * maxKeys * extentBytes(maxValue);
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(maxKeys + " keys of " + maxValue + " B need " + bytes
                    + " bytes of heap, more than one region holds");
        }
        return (int) bytes;
    }

    /** The first slot a key may occupy. */
    static int home(long key, int capacity) {
        return (int) (mix(key) & (capacity - 1));
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
