package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One index slot, {@value #BYTES} bytes, self-verifying (Pilaf): key (8), version (8), value offset in the heap (4),
 * value length (4), the value record's CRC-32C (4), and a CRC-32C over the 28 bytes before it (4). An empty slot is
 * all zeros. A slot read while the server rewrites it mixes two images and fails its checksum: the reader reads it
 * again.
 */
final class IndexSlot {
    /** The size of a slot. */
    static final int BYTES = 32;
    /** {@link #state}: never used. */
    static final int EMPTY = 0;
    /** {@link #state}: a complete, checksummed slot. */
    static final int VALID = 1;
    /** {@link #state}: neither empty nor consistent: read while being written. */
    static final int TORN = 2;

    private static final int VERSION = 8;
    private static final int OFFSET = 16;
    private static final int LENGTH = 20;
    private static final int RECORD_CRC = 24;
    private static final int SLOT_CRC = 28;

    private IndexSlot() {
    }

    /** Writes a slot at {@code at}. Versions start at 1, so a written slot is never all zeros. */
    static void write(ByteBuffer index, int at, long key, long version, int offset, int length, int recordCrc,
                      CRC32C crc) {
        index.putLong(at, key).putLong(at + VERSION, version).putInt(at + OFFSET, offset)
                .putInt(at + LENGTH, length).putInt(at + RECORD_CRC, recordCrc);
        crc.reset();
        KvLayout.update(crc, index, at, SLOT_CRC);
        index.putInt(at + SLOT_CRC, (int) crc.getValue());
    }

    /** {@link #EMPTY}, {@link #VALID} or {@link #TORN}. */
    static int state(ByteBuffer index, int at, CRC32C crc) {
        crc.reset();
        KvLayout.update(crc, index, at, SLOT_CRC);
        if ((int) crc.getValue() == index.getInt(at + SLOT_CRC) && version(index, at) != 0) {
            return VALID;
        }
        for (int i = 0; i < BYTES; i += 8) {
            if (index.getLong(at + i) != 0) {
                return TORN;
            }
        }
        return EMPTY;
    }

    static long key(ByteBuffer index, int at) {
        return index.getLong(at);
    }

    static long version(ByteBuffer index, int at) {
        return index.getLong(at + VERSION);
    }

    static int offset(ByteBuffer index, int at) {
        return index.getInt(at + OFFSET);
    }

    static int length(ByteBuffer index, int at) {
        return index.getInt(at + LENGTH);
    }

    static int recordCrc(ByteBuffer index, int at) {
        return index.getInt(at + RECORD_CRC);
    }
}
