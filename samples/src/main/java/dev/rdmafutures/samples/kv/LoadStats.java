package dev.rdmafutures.samples.kv;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One connection's counts, written by the one thread that completes its operations: latencies of the measured
 * operations, GETs and PUTs (measured, and all that ended well), the round trips the measured GETs took (READs over
 * RDMA, requests over TCP), reads repeated because they were torn, and a digest of every answer in order (a
 * deterministic run's digest is the same against any correct server).
 */
final class LoadStats {
    static final long MAX_LATENCY = TimeUnit.SECONDS.toNanos(60);

    final Histogram latency = new Histogram(MAX_LATENCY, 3);
    long gets;
    long puts;
    long getTrips;
    long tornReads;
    long digest;
    long lastEnd;
    /** Every GET that ended with its value checked whole, and every acknowledged PUT, measured or not. */
    long checkedGets;
    long acknowledgedPuts;

    /**
     * An operation that took {@code trips} round trips ended; counted and timed if it falls into the measured
     * interval.
     */
    void record(boolean get, int trips, long begin, long end, RunControl control) {
        lastEnd = end;
        control.completed();
        if (get) {
            checkedGets++;
        } else {
            acknowledgedPuts++;
        }
        if (control.measured(begin, end)) {
            latency.recordValue(Math.min(end - begin, MAX_LATENCY));
            if (get) {
                gets++;
                getTrips += trips;
            } else {
                puts++;
            }
        }
    }

    /** Folds an answer (a GET's version and value, or a PUT's acknowledged version) into the digest. */
    void answer(long key, long version, long seed) {
        digest = digest * 31 + KvLayout.mix(key * 0x9e3779b97f4a7c15L ^ version * 0xc2b2ae3d27d4eb4fL ^ seed);
    }
}
