package dev.rdmafutures.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.RemoteBuffer;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The index slot and record encodings, and that a reader detects every torn or stale read. */
class KvFormatTest {
    private static final int KEYS = 64;
    private static final int MAX_VALUE = 100;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer index = ByteBuffer.allocate(KvLayout.indexBytes(KEYS));
    private final ByteBuffer heap = ByteBuffer.allocate(KvLayout.heapBytes(KEYS, MAX_VALUE));
    private final KvStore store = new KvStore(index, heap, KEYS, MAX_VALUE);

    @Test
    void aSlotReadsBackAndAnEmptySlotIsAllZeros() {
        ByteBuffer b = ByteBuffer.allocate(2 * IndexSlot.BYTES);
        assertThat(IndexSlot.state(b, IndexSlot.BYTES, crc)).isEqualTo(IndexSlot.EMPTY);
        IndexSlot.write(b, IndexSlot.BYTES, -7, 3, 4096, 99, 0x1234abcd, crc);
        assertThat(IndexSlot.state(b, IndexSlot.BYTES, crc)).isEqualTo(IndexSlot.VALID);
        assertThat(IndexSlot.key(b, IndexSlot.BYTES)).isEqualTo(-7);
        assertThat(IndexSlot.version(b, IndexSlot.BYTES)).isEqualTo(3);
        assertThat(IndexSlot.offset(b, IndexSlot.BYTES)).isEqualTo(4096);
        assertThat(IndexSlot.length(b, IndexSlot.BYTES)).isEqualTo(99);
        assertThat(IndexSlot.recordCrc(b, IndexSlot.BYTES)).isEqualTo(0x1234abcd);
        assertThat(IndexSlot.state(b, 0, crc)).isEqualTo(IndexSlot.EMPTY);
    }

    @Test
    void everyMixOfTwoSlotImagesIsTorn() {
        byte[] empty = new byte[IndexSlot.BYTES];
        byte[] first = slot(5, 1, 0, 40, 111);
        byte[] second = slot(5, 2, 128, 41, 222);
        // A READ racing the server's rewrite sees a prefix of one image and the rest of the other.
        for (byte[][] pair : new byte[][][] {{empty, first}, {first, second}, {second, first}}) {
            for (int split = 1; split < IndexSlot.BYTES; split++) {
                byte[] mixed = pair[1].clone();
                System.arraycopy(pair[0], 0, mixed, 0, split);
                if (Arrays.equals(mixed, pair[0]) || Arrays.equals(mixed, pair[1])) {
                    continue; // the images agree beyond the split: nothing was torn
                }
                assertThat(IndexSlot.state(ByteBuffer.wrap(mixed), 0, crc)).as("split at %d", split)
                        .isEqualTo(IndexSlot.TORN);
            }
        }
        byte[] flipped = first.clone();
        flipped[13] ^= 4;
        assertThat(IndexSlot.state(ByteBuffer.wrap(flipped), 0, crc)).isEqualTo(IndexSlot.TORN);
    }

    @Test
    void aReaderOfAnOldSlotFindsItsRecordIntactUntilTheExtentIsReusedAndThenDetectsIt() {
        store.preload(KEYS, 40);
        int slot = slotOf(9);
        byte[] oldSlot = bytes(index, slot, IndexSlot.BYTES);
        ByteBuffer seen = ByteBuffer.wrap(oldSlot);
        int record = IndexSlot.offset(seen, 0);

        put(9, 77, 60); // version 2 goes to the other extent
        assertThat(IndexSlot.offset(index, slot)).isNotEqualTo(record);
        assertThat(readRecord(seen, record)).as("the old extent still holds version 1").isTrue();

        put(9, 78, 40); // version 3 reuses version 1's extent
        assertThat(IndexSlot.offset(index, slot)).isEqualTo(record);
        assertThat(readRecord(seen, record)).as("version 1's slot against version 3's record").isFalse();
        assertThat(readRecord(ByteBuffer.wrap(bytes(index, slot, IndexSlot.BYTES)), record)).isTrue();
    }

    @Test
    void aRecordTornBetweenTwoVersionsOrDamagedFailsItsCheck() {
        store.preload(KEYS, 40);
        int slot = slotOf(3);
        put(3, 500, 40);
        put(3, 501, 40); // version 3, in version 1's extent
        ByteBuffer current = ByteBuffer.wrap(bytes(index, slot, IndexSlot.BYTES));
        int record = IndexSlot.offset(current, 0);
        byte[] version3 = bytes(heap, record, ValueRecord.HEADER_BYTES + 40);
        put(3, 502, 40); // version 4, in the other extent
        put(3, 503, 40); // version 5 overwrites version 3's extent
        byte[] version5 = bytes(heap, record, ValueRecord.HEADER_BYTES + 40);
        for (int split = 1; split < version3.length; split++) {
            byte[] mixed = version5.clone();
            System.arraycopy(version3, 0, mixed, 0, split); // the first bytes of version 3, the rest of 5
            if (Arrays.equals(mixed, version3)) {
                continue;
            }
            assertThat(matches(current, ByteBuffer.wrap(mixed))).as("split at %d", split).isFalse();
        }
        assertThat(matches(current, ByteBuffer.wrap(version3))).isTrue();
        byte[] damaged = version3.clone();
        damaged[ValueRecord.HEADER_BYTES + 17] ^= 1;
        assertThat(matches(current, ByteBuffer.wrap(damaged))).isFalse();
    }

    @Test
    void valuesDescribeThemselvesAndAnyChangedByteIsCaught() {
        ByteBuffer b = ByteBuffer.allocate(200);
        for (int length : new int[] {16, 17, 23, 24, 31, 128}) {
            ValueContent.fill(b, 7, length, 42, 0xfeedL);
            assertThat(ValueContent.seedOf(b, 7, length, 42)).isEqualTo(0xfeedL);
            assertThat(ValueContent.seedOf(b, 7, length, 43)).isEqualTo(ValueContent.CORRUPT);
            for (int i = 0; i < length; i++) {
                b.put(7 + i, (byte) (b.get(7 + i) ^ 0x80));
                long seed = ValueContent.seedOf(b, 7, length, 42);
                assertThat(seed).as("length %d, byte %d", length, i).isNotEqualTo(0xfeedL);
                if (i < 8 || i >= 16) { // a changed seed reads as another value, which the expectations catch
                    assertThat(seed).as("length %d, byte %d", length, i).isEqualTo(ValueContent.CORRUPT);
                }
                b.put(7 + i, (byte) (b.get(7 + i) ^ 0x80));
            }
        }
        assertThat(ValueContent.seed(0)).isNotEqualTo(ValueContent.CORRUPT);
    }

    @Test
    void theStoreRefusesDamagedOversizedAndSurplusValues() {
        ByteBuffer value = ByteBuffer.allocate(MAX_VALUE + 1);
        ValueContent.fill(value, 0, 32, 1000, 5);
        assertThat(store.put(1000, value, 0, 32, valueCrc(value, 32) ^ 1)).isEqualTo(-Frames.BAD_REQUEST);
        assertThat(store.put(1000, value, 0, MAX_VALUE + 1, valueCrc(value, MAX_VALUE + 1)))
                .isEqualTo(-Frames.BAD_REQUEST);
        for (int key = 0; key < KEYS; key++) {
            assertThat(store.put(key, value, 0, 32, valueCrc(value, 32))).isEqualTo(1);
        }
        assertThat(store.put(KEYS, value, 0, 32, valueCrc(value, 32))).isEqualTo(-Frames.TABLE_FULL);
        assertThat(store.put(5, value, 0, 32, valueCrc(value, 32))).isEqualTo(2);
        ByteBuffer out = ByteBuffer.allocate(200);
        assertThat(store.get(5, out, 3)).isEqualTo(ValueRecord.HEADER_BYTES + 32);
        assertThat(ValueRecord.version(out, 3)).isEqualTo(2);
        assertThat(store.get(KEYS + 1, out, 0)).isEqualTo(-1);
    }

    @Test
    void theBootstrapSurvivesPaddingAndRejectsStrangers() {
        Bootstrap b = new Bootstrap(1024, 128, new RemoteBuffer(0x1000, 32768, 7), new RemoteBuffer(0x9000, 99, 8));
        byte[] padded = Arrays.copyOf(b.encode(), 56);
        assertThat(Bootstrap.decode(padded)).isEqualTo(b);
        assertThatThrownBy(() -> Bootstrap.decode(new byte[Bootstrap.BYTES]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Bootstrap.window(Arrays.copyOf(Bootstrap.hello(16), 56))).contains(16);
        assertThat(Bootstrap.window("let me in".getBytes())).isEmpty();
    }

    @Test
    void expectationsCatchStaleAndWrongValues() {
        Expectations e = new Expectations(4);
        assertThat(e.checkGet(1, 1, ValueContent.initialSeed(1), 1)).isNull();
        assertThat(e.checkGet(1, 1, 99, 1)).contains("not the acknowledged PUT's");
        assertThat(e.acknowledged(1, 2, 99)).isNull();
        assertThat(e.acknowledged(1, 2, 98)).contains("both acknowledged");
        assertThat(e.checkGet(1, 1, ValueContent.initialSeed(1), e.acknowledgedVersion(1))).contains("after version 2");
        assertThat(e.checkGet(1, 3, 1234, 2)).as("a PUT not yet acknowledged").isNull();
        e.quiesce();
        assertThat(e.checkGet(1, 3, 1234, 2)).contains("last acknowledged PUT made 2");
        assertThat(e.checkGet(1, 2, 99, 2)).isNull();
    }

    private byte[] slot(long key, long version, int offset, int length, int recordCrc) {
        ByteBuffer b = ByteBuffer.allocate(IndexSlot.BYTES);
        IndexSlot.write(b, 0, key, version, offset, length, recordCrc, crc);
        return b.array();
    }

    private int slotOf(long key) {
        int capacity = KvLayout.capacity(KEYS);
        for (int i = 0, s = KvLayout.home(key, capacity); i < capacity; i++, s = (s + 1) % capacity) {
            int at = s * IndexSlot.BYTES;
            if (IndexSlot.state(index, at, crc) == IndexSlot.VALID && IndexSlot.key(index, at) == key) {
                return at;
            }
        }
        throw new AssertionError("key " + key + " not in the index");
    }

    private void put(long key, long seed, int length) {
        ByteBuffer value = ByteBuffer.allocate(length);
        ValueContent.fill(value, 0, length, key, seed);
        assertThat(store.put(key, value, 0, length, valueCrc(value, length))).isPositive();
    }

    /** A GET's second READ: the record the slot image {@code seen} points to, as the heap holds it now. */
    private boolean readRecord(ByteBuffer seen, int record) {
        return matches(seen, ByteBuffer.wrap(bytes(heap, record, ValueRecord.HEADER_BYTES
                + IndexSlot.length(seen, 0))));
    }

    private boolean matches(ByteBuffer slot, ByteBuffer record) {
        ByteBuffer header = ByteBuffer.wrap(bytes(record, 0, ValueRecord.HEADER_BYTES));
        ByteBuffer payload = ByteBuffer.wrap(bytes(record, ValueRecord.HEADER_BYTES,
                record.capacity() - ValueRecord.HEADER_BYTES));
        return ValueRecord.matches(header, 0, payload, 0, IndexSlot.key(slot, 0), IndexSlot.version(slot, 0),
                IndexSlot.length(slot, 0), IndexSlot.recordCrc(slot, 0), crc);
    }

    private int valueCrc(ByteBuffer value, int length) {
        crc.reset();
        crc.update(value.array(), 0, length);
        return (int) crc.getValue();
    }

    private static byte[] bytes(ByteBuffer b, int at, int length) {
        byte[] copy = new byte[length];
        b.get(at, copy);
        return copy;
    }
}
