package dev.rdmafutures.samples.kv;

import java.util.SplittableRandom;

/**
 * The operations of one window slot of one connection: GET or PUT, which key, which value. Seeded from the run's
 * seed, the connection and the slot, so a run can be repeated exactly. Not thread-safe: each slot runs on one
 * thread at a time.
 */
final class Workload {
    private final SplittableRandom random;
    private final double getRatio;
    private final int keys;
    private long remaining;

    Workload(LoadSpec spec, int connection, int slot) {
        this.random = new SplittableRandom(KvLayout.mix(spec.seed() * 1_000_003 + connection * 4099L + slot));
        this.getRatio = spec.getRatio();
        this.keys = spec.keys();
        this.remaining = spec.opsPerSlot() > 0 ? spec.opsPerSlot() : Long.MAX_VALUE;
    }

    /** Whether this slot may start another operation under its count (timed runs stop by the clock). */
    boolean takeOne() {
        if (remaining == 0) {
            return false;
        }
        remaining--;
        return true;
    }

    boolean nextIsGet() {
        return random.nextDouble() < getRatio;
    }

    long nextKey() {
        return random.nextInt(keys);
    }

    long nextSeed() {
        return ValueContent.seed(random.nextLong());
    }
}
