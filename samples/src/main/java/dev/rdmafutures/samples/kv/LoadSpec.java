package dev.rdmafutures.samples.kv;

import java.time.Duration;

/**
 * One load run: how many client connections, the operations each keeps outstanding, keys and value size, the share
 * of GETs, and either a warm-up plus a measured duration or, when {@code opsPerSlot} is positive, a fixed number of
 * operations per window slot (a deterministic run: with one connection and a window of 1 the same seed gives the
 * same operations against any server).
 *
 * @param connections client connections
 * @param window      operations outstanding per connection
 * @param keys        keys 0..keys-1, all preloaded by the server
 * @param valueSize   bytes per PUT value
 * @param getRatio    share of GETs, 0..1
 * @param warmup      load before measuring
 * @param duration    measured load
 * @param opsPerSlot  operations per window slot instead of the durations; 0 for a timed run
 * @param seed        the random seed of keys, operations and values
 */
record LoadSpec(int connections, int window, int keys, int valueSize, double getRatio, Duration warmup,
                Duration duration, long opsPerSlot, long seed) {
    LoadSpec {
        check(connections >= 1 && connections <= 1024, "connections must be 1..1024: " + connections);
        check(window >= 1 && window <= 1024, "window must be 1..1024: " + window);
        check(keys >= 1 && keys <= 1 << 24, "keys must be 1.." + (1 << 24) + ": " + keys);
        check(valueSize >= ValueContent.MIN_LENGTH && valueSize <= 1 << 20,
                "value size must be " + ValueContent.MIN_LENGTH + ".." + (1 << 20) + ": " + valueSize);
        check(getRatio >= 0 && getRatio <= 1, "GET ratio must be 0..1: " + getRatio);
        check(!warmup.isNegative() && !duration.isNegative() && opsPerSlot >= 0, "negative duration or count");
        check(opsPerSlot > 0 || !duration.isZero(), "a timed run needs a duration");
    }

    /** A timed run with seed 1. */
    static LoadSpec timed(int connections, int window, int keys, int valueSize, double getRatio, Duration warmup,
                          Duration duration) {
        return new LoadSpec(connections, window, keys, valueSize, getRatio, warmup, duration, 0, 1);
    }

    /** This run with another share of GETs. */
    LoadSpec withGetRatio(double ratio) {
        return new LoadSpec(connections, window, keys, valueSize, ratio, warmup, duration, opsPerSlot, seed);
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
