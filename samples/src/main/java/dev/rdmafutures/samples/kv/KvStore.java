package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The server's table: an index and a heap laid out as {@link KvLayout} says, in buffers the caller provides (the
 * registered regions of the RDMA server, plain direct buffers for the TCP twin). Writers are serialised by this
 * object's monitor; RDMA readers take no lock and detect torn reads themselves: a PUT writes the new record into
 * the key's spare extent, then rewrites the slot.
 */
final class KvStore {
    private final ByteBuffer index;
    private final ByteBuffer heap;
    private final int capacity;
    private final int maxKeys;
    private final int maxValue;
    private final int extent;
    private final CRC32C crc = new CRC32C();
    private int keys;

    KvStore(ByteBuffer index, ByteBuffer heap, int maxKeys, int maxValue) {
        if (maxValue < ValueContent.MIN_LENGTH) {
            throw new IllegalArgumentException("values need at least " + ValueContent.MIN_LENGTH + " bytes");
        }
        this.capacity = KvLayout.capacity(maxKeys);
        if (index.capacity() < KvLayout.indexBytes(maxKeys) || heap.capacity()
                < KvLayout.heapBytes(maxKeys, maxValue)) {
            throw new IllegalArgumentException("index or heap too small for " + maxKeys + " keys");
        }
        this.index = index;
        this.heap = heap;
        this.maxKeys = maxKeys;
        this.maxValue = maxValue;
        this.extent = KvLayout.extentBytes(maxValue);
    }

    int capacity() {
        return capacity;
    }

    int maxValue() {
        return maxValue;
    }

    /**
     * Stores {@code length} bytes of {@code value} from {@code at} under {@code key}. Returns the new version (from 1),
     * or the negated {@link Frames} status: {@link Frames#BAD_REQUEST} for a value longer than the maximum or whose
     * CRC-32C is not {@code valueCrc} (damaged on the way), {@link Frames#TABLE_FULL} for a new key beyond the
     * table's keys.
     */
    synchronized long put(long key, ByteBuffer value, int at, int length, int valueCrc) {
        if (length < 0 || length > maxValue) {
            return -Frames.BAD_REQUEST;
        }
        crc.reset();
        KvLayout.update(crc, value, at, length);
        if ((int) crc.getValue() != valueCrc) {
            return -Frames.BAD_REQUEST;
        }
        int slot = find(key);
        int record;
        long version;
        if (slot >= 0) {
            int current = IndexSlot.offset(index, slot);
            int pair = current - current % (2 * extent);
            record = current == pair ? pair + extent : pair;
            version = IndexSlot.version(index, slot) + 1;
        } else if (keys == maxKeys) {
            return -Frames.TABLE_FULL;
        } else {
            slot = -slot - 1;
            record = keys++ * 2 * extent;
            version = 1;
        }
        int recordCrc = ValueRecord.write(heap, record, key, version, value, at, length, crc);
        IndexSlot.write(index, slot, key, version, record, length, recordCrc, crc);
        return version;
    }

    /** Stores keys 0..{@code count - 1}, each a {@code length}-byte value of {@link ValueContent#initialSeed}. */
    void preload(int count, int length) {
        ByteBuffer value = ByteBuffer.allocate(length);
        CRC32C valueCrc = new CRC32C();
        for (int key = 0; key < count; key++) {
            ValueContent.fill(value, 0, length, key, ValueContent.initialSeed(key));
            valueCrc.reset();
            valueCrc.update(value.array(), 0, length);
            long version = put(key, value, 0, length, (int) valueCrc.getValue());
            if (version != 1) {
                throw new IllegalStateException("preloading key " + key + " gave " + version);
            }
        }
    }

    /**
     * Copies {@code key}'s record (header and value) to {@code out} at {@code at}; returns its length, or -1 when the
     * key is absent.
     */
    synchronized int get(long key, ByteBuffer out, int at) {
        int slot = find(key);
        if (slot < 0) {
            return -1;
        }
        int length = ValueRecord.HEADER_BYTES + IndexSlot.length(index, slot);
        out.put(at, heap, IndexSlot.offset(index, slot), length);
        return length;
    }

    /** The slot's byte offset holding {@code key}, or -(offset of the empty slot where it would go) - 1. */
    private int find(long key) {
        for (int i = 0, s = KvLayout.home(key, capacity); i < capacity; i++, s = (s + 1) & (capacity - 1)) {
            int at = s * IndexSlot.BYTES;
            if (IndexSlot.version(index, at) == 0) { // only this writer changes slots: never torn here
                return -at - 1;
            }
            if (IndexSlot.key(index, at) == key) {
                return at;
            }
        }
        throw new IllegalStateException("the index has no empty slot; it is kept at most half full");
    }
}
