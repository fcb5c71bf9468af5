package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;

/**
 * What the load generator stores: self-describing values, so that every value a client reads can be checked
 * byte for byte. A value of {@code length} (at least {@value #MIN_LENGTH}) bytes holds its key (8), a seed (8) and
 * then a stream derived from the seed; {@link #seedOf} gives the seed back only if every byte is as the seed says.
 */
final class ValueContent {
    /** The shortest value: key and seed. */
    static final int MIN_LENGTH = 16;
    /** {@link #seedOf}'s answer for a value that is not what its key and seed describe. */
    static final long CORRUPT = 0;

    private ValueContent() {
    }

    /** A non-zero seed from any random long. */
    static long seed(long random) {
        return random == CORRUPT ? 1 : random;
    }

    /** The seed of the value a key is preloaded with (version 1). */
    static long initialSeed(long key) {
        return seed(KvLayout.mix(~key));
    }

    /** Writes {@code length} bytes for {@code key} and {@code seed} (not {@link #CORRUPT}) at {@code at}. */
    static void fill(ByteBuffer buffer, int at, int length, long key, long seed) {
        buffer.putLong(at, key).putLong(at + 8, seed);
        int i = MIN_LENGTH;
        for (; i + 8 <= length; i += 8) {
            buffer.putLong(at + i, word(seed, i));
        }
        long last = word(seed, i);
        for (; i < length; i++, last >>>= 8) {
            buffer.put(at + i, (byte) last);
        }
    }

    /** The seed of a value of {@code key}, or {@link #CORRUPT} when any byte differs from what it describes. */
    static long seedOf(ByteBuffer buffer, int at, int length, long key) {
        if (length < MIN_LENGTH || buffer.getLong(at) != key) {
            return CORRUPT;
        }
        long seed = buffer.getLong(at + 8);
        int i = MIN_LENGTH;
        for (; i + 8 <= length; i += 8) {
            if (buffer.getLong(at + i) != word(seed, i)) {
                return CORRUPT;
            }
        }
        long last = word(seed, i);
        for (; i < length; i++, last >>>= 8) {
            if (buffer.get(at + i) != (byte) last) {
                return CORRUPT;
            }
        }
        return seed;
    }

    private static long word(long seed, int index) {
        return KvLayout.mix(seed + index * 0x9e3779b97f4a7c15L);
    }
}
