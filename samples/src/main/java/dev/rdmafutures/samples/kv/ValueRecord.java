package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A value in the heap: a {@value #HEADER_BYTES}-byte header, key (8), version (8), length (4) and a CRC-32C over
 * the header's first 20 bytes and the value (4), followed by the value. A GET reads header and value in one
 * scatter-gather READ into two buffers and accepts them only if the header names the key, version and length its
 * index slot promised and both checksums agree; anything else was overwritten or torn under the READ.
 */
final class ValueRecord {
    /** The size of the header. */
    static final int HEADER_BYTES = 24;

    private static final int VERSION = 8;
    private static final int LENGTH = 16;
    private static final int CRC = 20;

    private ValueRecord() {
    }

    /**
     * Writes a record at {@code at}: the value ({@code length} bytes of {@code value} from {@code valueAt}) first,
     * then the header. Returns the record's CRC, which the index slot repeats.
     */
    static int write(ByteBuffer heap, int at, long key, long version, ByteBuffer value, int valueAt, int length,
                     CRC32C crc) {
        heap.put(at + HEADER_BYTES, value, valueAt, length);
        heap.putLong(at, key).putLong(at + VERSION, version).putInt(at + LENGTH, length);
        int recordCrc = crc(heap, at, heap, at + HEADER_BYTES, length, crc);
        heap.putInt(at + CRC, recordCrc);
        return recordCrc;
    }

    /**
     * Whether a header and value read apart are the record the slot described: same key, version and length, and
     * the CRC over header and value equal to both the header's and the slot's.
     */
    static boolean matches(ByteBuffer header, int headerAt, ByteBuffer value, int valueAt, long key, long version,
                           int length, int slotCrc, CRC32C crc) {
        if (header.getLong(headerAt) != key || header.getLong(headerAt + VERSION) != version
                || header.getInt(headerAt + LENGTH) != length || header.getInt(headerAt + CRC) != slotCrc) {
            return false;
        }
        return crc(header, headerAt, value, valueAt, length, crc) == slotCrc;
    }

    static long version(ByteBuffer header, int headerAt) {
        return header.getLong(headerAt + VERSION);
    }

    static int length(ByteBuffer header, int headerAt) {
        return header.getInt(headerAt + LENGTH);
    }

    static int crc(ByteBuffer header, int headerAt) {
        return header.getInt(headerAt + CRC);
    }

    private static int crc(ByteBuffer header, int headerAt, ByteBuffer value, int valueAt, int length, CRC32C crc) {
        crc.reset();
        KvLayout.update(crc, header, headerAt, CRC);
        KvLayout.update(crc, value, valueAt, length);
        return (int) crc.getValue();
    }
}
