package dev.rdmafutures.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.RemoteBuffer;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The index slot and record encodings, and that a reader detects every torn or stale read. */
class KvFormatTest {
    private static final int KEYS = 64;
    private static final int MAX_VALUE = 100;
    private static final int HEAP_VALUE = KvLayout.INLINE_MAX + 76;

    private final CRC32C crc = new CRC32C();
    /** Values inline in the index. */
    private final KvStore store = new KvStore(KEYS, MAX_VALUE);
    /** Values too large to be inline, in the heap. */
    private final KvStore heapStore = new KvStore(KEYS, HEAP_VALUE);
    private final ByteBuffer index = heapStore.index();
    private final ByteBuffer heap = heapStore.heap();

    @Test
    void theLayoutKeepsValuesUpToTheBoundInlineAndTheIndexHalfEmpty() {
        KvLayout inline = KvLayout.forKeys(10_000, 128);
        assertThat(inline.capacity()).isEqualTo(32_768);
        assertThat(inline.inline()).isTrue();
        assertThat(inline.slotBytes()).isEqualTo(160);
        assertThat(inline.heapBytes(10_000)).isZero();
        assertThat(KvLayout.forKeys(10_000, KvLayout.INLINE_MAX).slotBytes()).isEqualTo(KvLayout.INLINE_MAX + 32);
        KvLayout heapLayout = KvLayout.forKeys(10_000, KvLayout.INLINE_MAX + 1);
        assertThat(heapLayout.inline()).isFalse();
        assertThat(heapLayout.slotBytes()).isEqualTo(IndexSlot.HEADER_BYTES);
        assertThat(heapLayout.heapBytes(10_000)).isEqualTo(2 * 10_000 * heapLayout.extentBytes());
        assertThat(KvLayout.forKeys(3, 16).capacity()).isEqualTo(KvLayout.NEIGHBOURHOOD);
        assertThat(heapStore.heap()).isNotNull();
        assertThat(store.heap()).isNull();
        assertThatThrownBy(() -> KvLayout.forKeys(1 << 24, KvLayout.INLINE_MAX)).hasMessageContaining("index");
        assertThatThrownBy(() -> new KvLayout(100, 64)).hasMessageContaining("power of two");
    }

    @Test
    void aSlotReadsBackAndAnEmptySlotIsAllZeros() {
        KvLayout layout = heapStore.layout();
        ByteBuffer b = ByteBuffer.allocate(2 * IndexSlot.HEADER_BYTES);
        assertThat(IndexSlot.find(b, IndexSlot.HEADER_BYTES, 1, layout, -7, crc)).isEqualTo(IndexSlot.MISSING);
        IndexSlot.write(b, IndexSlot.HEADER_BYTES, -7, 3, 4096, 99, 0x1234abcd, crc);
        assertThat(IndexSlot.valid(b, IndexSlot.HEADER_BYTES, 0, crc)).isTrue();
        assertThat(IndexSlot.find(b, IndexSlot.HEADER_BYTES, 1, layout, -7, crc)).isEqualTo(IndexSlot.HEADER_BYTES);
        assertThat(IndexSlot.key(b, IndexSlot.HEADER_BYTES)).isEqualTo(-7);
        assertThat(IndexSlot.version(b, IndexSlot.HEADER_BYTES)).isEqualTo(3);
        assertThat(IndexSlot.offset(b, IndexSlot.HEADER_BYTES)).isEqualTo(4096);
        assertThat(IndexSlot.length(b, IndexSlot.HEADER_BYTES)).isEqualTo(99);
        assertThat(IndexSlot.recordCrc(b, IndexSlot.HEADER_BYTES)).isEqualTo(0x1234abcd);
        assertThat(IndexSlot.find(b, 0, 2, layout, -7, crc)).as("the first slot is empty").isEqualTo(IndexSlot.MISSING);
    }

    @Test
    void everyMixOfTwoSlotImagesIsTorn() {
        byte[] empty = new byte[IndexSlot.HEADER_BYTES];
        byte[] first = slot(5, 1, 0, 40, 111);
        byte[] second = slot(5, 2, 128, 41, 222);
        // A READ racing the server's rewrite sees a prefix of one image and the rest of the other.
        for (byte[][] pair : new byte[][][] {{empty, first}, {first, second}, {second, first}}) {
            for (int split = 1; split < IndexSlot.HEADER_BYTES; split++) {
                byte[] mixed = pair[1].clone();
                System.arraycopy(pair[0], 0, mixed, 0, split);
                if (Arrays.equals(mixed, pair[0]) || Arrays.equals(mixed, pair[1])) {
                    continue; // the images agree beyond the split: nothing was torn
                }
                assertThat(IndexSlot.valid(ByteBuffer.wrap(mixed), 0, 0, crc)).as("split at %d", split).isFalse();
            }
        }
        byte[] flipped = first.clone();
        flipped[13] ^= 4;
        assertThat(IndexSlot.valid(ByteBuffer.wrap(flipped), 0, 0, crc)).isFalse();
    }

    @Test
    void aReaderOfAnOldSlotFindsItsRecordIntactUntilTheExtentIsReusedAndThenDetectsIt() {
        heapStore.preload(KEYS, 40);
        int slot = slotOf(heapStore, 9);
        byte[] oldSlot = bytes(index, slot, IndexSlot.HEADER_BYTES);
        ByteBuffer seen = ByteBuffer.wrap(oldSlot);
        int record = IndexSlot.offset(seen, 0);

        put(heapStore, 9, 77, 60); // version 2 goes to the other extent
        assertThat(IndexSlot.offset(index, slot)).isNotEqualTo(record);
        assertThat(readRecord(seen, record)).as("the old extent still holds version 1").isTrue();

        put(heapStore, 9, 78, 40); // version 3 reuses version 1's extent
        assertThat(IndexSlot.offset(index, slot)).isEqualTo(record);
        assertThat(readRecord(seen, record)).as("version 1's slot against version 3's record").isFalse();
        assertThat(readRecord(ByteBuffer.wrap(bytes(index, slot, IndexSlot.HEADER_BYTES)), record)).isTrue();
    }

    @Test
    void aRecordTornBetweenTwoVersionsOrDamagedFailsItsCheck() {
        heapStore.preload(KEYS, 40);
        int slot = slotOf(heapStore, 3);
        put(heapStore, 3, 500, 40);
        put(heapStore, 3, 501, 40); // version 3, in version 1's extent
        ByteBuffer current = ByteBuffer.wrap(bytes(index, slot, IndexSlot.HEADER_BYTES));
        int record = IndexSlot.offset(current, 0);
        byte[] version3 = bytes(heap, record, ValueRecord.HEADER_BYTES + 40);
        put(heapStore, 3, 502, 40); // version 4, in the other extent
        put(heapStore, 3, 503, 40); // version 5 overwrites version 3's extent
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
    void theStoreRefusesDamagedOversizedAndSurplusValuesAndAnswersWithWhatAReaderChecks() {
        for (KvStore s : new KvStore[] {store, heapStore}) {
            int max = s.layout().maxValue();
            ByteBuffer value = ByteBuffer.allocate(max + 1);
            ValueContent.fill(value, 0, 32, 1000, 5);
            assertThat(s.put(1000, value, 0, 32, valueCrc(value, 32) ^ 1)).isEqualTo(-Frames.BAD_REQUEST);
            assertThat(s.put(1000, value, 0, max + 1, valueCrc(value, max + 1))).isEqualTo(-Frames.BAD_REQUEST);
            for (int key = 0; key < KEYS; key++) {
                assertThat(s.put(key, value, 0, 32, valueCrc(value, 32))).isEqualTo(1);
            }
            assertThat(s.put(KEYS, value, 0, 32, valueCrc(value, 32))).isEqualTo(-Frames.TABLE_FULL);
            assertThat(s.put(5, value, 0, 32, valueCrc(value, 32))).isEqualTo(2);
            ByteBuffer out = ByteBuffer.allocate(200);
            if (s.layout().inline()) {
                assertThat(s.get(5, out, 3)).isEqualTo(IndexSlot.HEADER_BYTES + 32);
                assertThat(IndexSlot.valid(out, 3, 32, crc)).isTrue();
                assertThat(IndexSlot.version(out, 3)).isEqualTo(2);
            } else {
                assertThat(s.get(5, out, 3)).isEqualTo(ValueRecord.HEADER_BYTES + 32);
                assertThat(ValueRecord.version(out, 3)).isEqualTo(2);
            }
            assertThat(s.get(KEYS + 1, out, 0)).isEqualTo(-1);
        }
    }

    @Test
    void findPassesOverOtherKeysSlotsEvenMidRewriteAndTrustsOnlyTheKeysOwnChecksum() {
        KvLayout layout = store.layout();
        int size = layout.slotBytes();
        ByteBuffer slots = ByteBuffer.allocate(4 * size);
        ByteBuffer value = ByteBuffer.allocate(40);
        ValueContent.fill(value, 0, 40, 1, 11);
        IndexSlot.writeInline(slots, 0, 1, 1, value, 0, 40, crc);
        ValueContent.fill(value, 0, 40, 2, 22);
        IndexSlot.writeInline(slots, size, 2, 3, value, 0, 40, crc);
        slots.put(IndexSlot.HEADER_BYTES + 20, (byte) 0x55); // key 1's slot, caught mid-rewrite

        assertThat(IndexSlot.find(slots, 0, 4, layout, 2, crc)).isEqualTo(size);
        assertThat(IndexSlot.find(slots, 0, 4, layout, 1, crc)).isEqualTo(IndexSlot.REREAD);
        assertThat(IndexSlot.find(slots, 0, 4, layout, 3, crc)).as("the third slot is empty")
                .isEqualTo(IndexSlot.MISSING);
        assertThat(IndexSlot.find(slots, 0, 2, layout, 3, crc)).isEqualTo(IndexSlot.FURTHER);
        slots.put(size + 22, (byte) 0x7f); // key 2's length, torn far beyond the slot: not even checksummed
        assertThat(IndexSlot.find(slots, 0, 4, layout, 2, crc)).isEqualTo(IndexSlot.REREAD);
    }

    @Test
    void anInlineSlotMixedFromTwoVersionsIsReadAgainAndNeverAcceptedWrong() {
        store.preload(KEYS, 40);
        KvLayout layout = store.layout();
        int slot = slotOf(store, 9);
        byte[] version1 = bytes(store.index(), slot, layout.slotBytes());
        put(store, 9, 77, 60); // rewrites the slot in place, with a longer value
        byte[] version2 = bytes(store.index(), slot, layout.slotBytes());
        // A READ racing the rewrite may see any mix of the two images, at whatever granularity the transport
        // tears: a prefix of either and the rest of the other, or any choice of 8-byte words.
        SplittableRandom random = new SplittableRandom(7);
        int reread = 0;
        for (int n = 0; n < 4 * layout.slotBytes() + 2000; n++) {
            byte[] mixed = version1.clone();
            if (n < 2 * layout.slotBytes()) {
                byte[] first = n % 2 == 0 ? version1 : version2;
                mixed = (n % 2 == 0 ? version2 : version1).clone();
                System.arraycopy(first, 0, mixed, 0, n / 2);
            } else {
                for (int word = 0; word < layout.slotBytes(); word += 8) {
                    if (random.nextBoolean()) {
                        System.arraycopy(version2, word, mixed, word, 8);
                    }
                }
            }
            int found = IndexSlot.find(ByteBuffer.wrap(mixed), 0, 1, layout, 9, crc);
            if (found == IndexSlot.REREAD) {
                reread++;
                continue;
            }
            // Accepted: then it is exactly one version, header and value (bytes beyond the value do not count).
            assertThat(found).isZero();
            ByteBuffer b = ByteBuffer.wrap(mixed);
            long version = IndexSlot.version(b, 0);
            int length = IndexSlot.length(b, 0);
            assertThat(version == 1 ? version1 : version2).as("mix %d", n)
                    .startsWith(Arrays.copyOf(mixed, IndexSlot.HEADER_BYTES + length));
            assertThat(ValueContent.seedOf(b, IndexSlot.HEADER_BYTES, length, 9))
                    .isEqualTo(version == 1 ? ValueContent.initialSeed(9) : 77);
        }
        assertThat(reread).isGreaterThan(2 * layout.slotBytes());
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
        ByteBuffer b = ByteBuffer.allocate(IndexSlot.HEADER_BYTES);
        IndexSlot.write(b, 0, key, version, offset, length, recordCrc, crc);
        return b.array();
    }

    /** The offset of {@code key}'s slot in {@code s}'s index. */
    private int slotOf(KvStore s, long key) {
        KvLayout layout = s.layout();
        for (int i = 0, at = layout.home(key); i < layout.capacity(); i++, at = (at + 1) % layout.capacity()) {
            int slot = at * layout.slotBytes();
            if (IndexSlot.valid(s.index(), slot, layout.inlineBytes(), crc) && IndexSlot.key(s.index(), slot) == key) {
                return slot;
            }
        }
        throw new AssertionError("key " + key + " not in the index");
    }

    private void put(KvStore s, long key, long seed, int length) {
        ByteBuffer value = ByteBuffer.allocate(length);
        ValueContent.fill(value, 0, length, key, seed);
        assertThat(s.put(key, value, 0, length, valueCrc(value, length))).isPositive();
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
