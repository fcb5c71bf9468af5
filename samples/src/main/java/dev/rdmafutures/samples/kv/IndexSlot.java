package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One index slot, self-verifying (Pilaf): a {@value #HEADER_BYTES}-byte header, key (8), version (8), value offset
 * in the heap (4), value length (4), the value record's CRC-32C (4), and a CRC-32C over the 28 bytes before it and,
 * in an index whose values are inline ({@link KvLayout#inline()}), over the value that follows the header (offset
 * and record CRC are then 0). An empty slot's header is all zeros. A slot read while the server rewrites it mixes
 * two images and fails its checksum: the reader reads it again.
 */
final class IndexSlot {
    /** The size of a slot's header; an inline value follows it. */
    static final int HEADER_BYTES = 32;
    /** {@link #find}: an empty slot came before the key's: the key is absent. */
    static final int MISSING = -1;
    /** {@link #find}: the key's slot was read while being written: read it again. */
    static final int REREAD = -2;
    /** {@link #find}: neither the key nor an empty slot among these: read the next slots. */
    static final int FURTHER = -3;

    private static final int VERSION = 8;
    private static final int OFFSET = 16;
    private static final int LENGTH = 20;
    private static final int RECORD_CRC = 24;
    private static final int SLOT_CRC = 28;

    private IndexSlot() {
    }

    /** Writes a slot whose value is a heap record. Versions start at 1, so a written slot is never all zeros. */
    static void write(ByteBuffer index, int at, long key, long version, int offset, int length, int recordCrc,
                      CRC32C crc) {
        index.putLong(at, key).putLong(at + VERSION, version).putInt(at + OFFSET, offset)
                .putInt(at + LENGTH, length).putInt(at + RECORD_CRC, recordCrc);
        seal(index, at, 0, crc);
    }

    /**
     * Writes a slot holding its value: {@code length} bytes of {@code value} from {@code valueAt} after the header.
     * A reader racing this rewrite sees old and new bytes mixed, which the slot CRC refuses.
     */
    static void writeInline(ByteBuffer index, int at, long key, long version, ByteBuffer value, int valueAt,
                            int length, CRC32C crc) {
        index.put(at + HEADER_BYTES, value, valueAt, length);
        index.putLong(at, key).putLong(at + VERSION, version).putInt(at + OFFSET, 0).putInt(at + LENGTH, length)
                .putInt(at + RECORD_CRC, 0);
        seal(index, at, length, crc);
    }

    private static void seal(ByteBuffer index, int at, int inlineLength, CRC32C crc) {
        index.putInt(at + SLOT_CRC, checksum(index, at, inlineLength, crc));
    }

    /**
     * Whether the slot at {@code at} is complete: its checksum agrees and its version is set. {@code inlineBytes}
     * is the room for an inline value ({@link KvLayout#inlineBytes()}; 0 when values live in the heap): an inline
     * slot must claim a length within it, and its value is checked too.
     */
    static boolean valid(ByteBuffer slots, int at, int inlineBytes, CRC32C crc) {
        int length = length(slots, at);
        if (inlineBytes > 0 && (length < 0 || length > inlineBytes)) {
            return false; // a length torn beyond the slot: do not even checksum it
        }
        return version(slots, at) != 0
                && checksum(slots, at, inlineBytes > 0 ? length : 0, crc) == slots.getInt(at + SLOT_CRC);
    }

    /**
     * Looks for {@code key} among {@code count} slots read from the index into {@code slots} at {@code at}, as a
     * GET does: the offset of its valid slot, or {@link #MISSING}, {@link #REREAD} or {@link #FURTHER}. Only the
     * key's own slot is checksummed: once written, a slot keeps its key (slots are never deleted, a PUT rewrites the
     * same key), so another slot caught mid-rewrite still shows its key and is passed over; one caught while first
     * written shows zeros or part of its key, and the GET sees the index as it was before that insert or reads again.
     */
    static int find(ByteBuffer slots, int at, int count, KvLayout layout, long key, CRC32C crc) {
        for (int i = 0; i < count; i++, at += layout.slotBytes()) {
            if (isEmpty(slots, at)) {
                return MISSING;
            }
            if (key(slots, at) == key) {
                return valid(slots, at, layout.inlineBytes(), crc) ? at : REREAD;
            }
        }
        return FURTHER;
    }

    private static boolean isEmpty(ByteBuffer slots, int at) {
        for (int i = 0; i < HEADER_BYTES; i += 8) {
            if (slots.getLong(at + i) != 0) {
                return false;
            }
        }
        return true;
    }

    private static int checksum(ByteBuffer slots, int at, int inlineLength, CRC32C crc) {
        crc.reset();
        KvLayout.update(crc, slots, at, SLOT_CRC);
        if (inlineLength > 0) {
            KvLayout.update(crc, slots, at + HEADER_BYTES, inlineLength);
        }
        return (int) crc.getValue();
    }

    static long key(ByteBuffer slots, int at) {
        return slots.getLong(at);
    }

    static long version(ByteBuffer slots, int at) {
        return slots.getLong(at + VERSION);
    }

    static int offset(ByteBuffer slots, int at) {
        return slots.getInt(at + OFFSET);
    }

    static int length(ByteBuffer slots, int at) {
        return slots.getInt(at + LENGTH);
    }

    static int recordCrc(ByteBuffer slots, int at) {
        return slots.getInt(at + RECORD_CRC);
    }
}
