package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The server's table: an index and, for values too large to live inline, a heap, laid out as {@link KvLayout} says
 * in direct buffers of its own (the RDMA server registers them, the TCP twin serves them as they are). Writers are
 * serialised by this object's monitor; RDMA readers take no lock and detect torn reads themselves.
 */
final class KvStore {
    private final KvLayout layout;
    private final ByteBuffer index;
    private final ByteBuffer heap;
    private final int maxKeys;
    private final CRC32C crc = new CRC32C();
    private int keys;

    /** An empty table for at most {@code maxKeys} keys of at most {@code maxValue} bytes. */
    KvStore(int maxKeys, int maxValue) {
        this.layout = KvLayout.forKeys(maxKeys, maxValue);
        this.index = ByteBuffer.allocateDirect(layout.indexBytes());
        int heapBytes = layout.heapBytes(maxKeys);
        this.heap = heapBytes == 0 ? null : ByteBuffer.allocateDirect(heapBytes);
        this.maxKeys = maxKeys;
    }

    /** A table holding keys 0..{@code keys - 1}, each a {@code valueSize}-byte value of its initial seed. */
    static KvStore preloaded(int keys, int valueSize) {
        KvStore store = new KvStore(keys, valueSize);
        store.preload(keys, valueSize);
        return store;
    }

    KvLayout layout() {
        return layout;
    }

    /** The index, which RDMA clients READ. */
    ByteBuffer index() {
        return index;
    }

    /** The heap, which RDMA clients READ; null when values are inline. */
    ByteBuffer heap() {
        return heap;
    }

    /** The most {@link #get} copies: a slot or a record header and the largest value. */
    int largestAnswer() {
        return Math.max(IndexSlot.HEADER_BYTES, ValueRecord.HEADER_BYTES) + layout.maxValue();
    }

    /**
     * Stores {@code length} bytes of {@code value} from {@code at} under {@code key}. Returns the new version (from 1),
     * or the negated {@link Frames} status: {@link Frames#BAD_REQUEST} for a value longer than the maximum or whose
     * CRC-32C is not {@code valueCrc} (damaged on the way), {@link Frames#TABLE_FULL} for a new key beyond the
     * table's keys. An inline value rewrites its slot in place; a heap value goes to the key's spare extent first,
     * then the slot points to it.
     */
    synchronized long put(long key, ByteBuffer value, int at, int length, int valueCrc) {
        if (length < 0 || length > layout.maxValue()) {
            return -Frames.BAD_REQUEST;
        }
        crc.reset();
        KvLayout.update(crc, value, at, length);
        if ((int) crc.getValue() != valueCrc) {
            return -Frames.BAD_REQUEST;
        }
        int slot = find(key);
        long version;
        int current; // the heap extent the slot points to, -1 for a new key
        if (slot >= 0) {
            version = IndexSlot.version(index, slot) + 1;
            current = IndexSlot.offset(index, slot);
        } else if (keys == maxKeys) {
            return -Frames.TABLE_FULL;
        } else {
            slot = -slot - 1;
            version = 1;
            current = -1;
            keys++;
        }
        if (layout.inline()) {
            IndexSlot.writeInline(index, slot, key, version, value, at, length, crc);
            return version;
        }
        int extent = layout.extentBytes();
        int record = current < 0 ? (keys - 1) * 2 * extent // a new key takes the next pair of extents
                : current % (2 * extent) == 0 ? current + extent : current - extent;
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
     * Copies what a GET over RDMA checks to {@code out} at {@code at}: {@code key}'s slot with its inline value, or
     * its heap record (header and value). Returns the bytes copied, or -1 when the key is absent.
     */
    synchronized int get(long key, ByteBuffer out, int at) {
        int slot = find(key);
        if (slot < 0) {
            return -1;
        }
        int length = IndexSlot.length(index, slot);
        if (layout.inline()) {
            out.put(at, index, slot, IndexSlot.HEADER_BYTES + length);
            return IndexSlot.HEADER_BYTES + length;
        }
        out.put(at, heap, IndexSlot.offset(index, slot), ValueRecord.HEADER_BYTES + length);
        return ValueRecord.HEADER_BYTES + length;
    }

    /** The slot's byte offset holding {@code key}, or -(offset of the empty slot where it would go) - 1. */
    private int find(long key) {
        int capacity = layout.capacity();
        for (int i = 0, s = layout.home(key); i < capacity; i++, s = (s + 1) & (capacity - 1)) {
            int at = s * layout.slotBytes();
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
