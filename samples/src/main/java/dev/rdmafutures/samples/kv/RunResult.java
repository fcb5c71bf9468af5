package dev.rdmafutures.samples.kv;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What a run measured, over all its connections.
 *
 * @param service   a name for the table, e.g. {@code RDMA} or {@code TCP}
 * @param gets      measured GETs
 * @param puts      measured PUTs
 * @param getTrips  the round trips the measured GETs took: READs over RDMA, requests over TCP
 * @param tornReads GET reads repeated because the server changed the slot or record under them
 * @param seconds   the measured interval
 * @param latency   every measured operation's latency in nanoseconds
 * @param digest    the answers' digest (see {@link LoadStats#answer})
 * @param failure   the first failure, or null
 * @param outcomes  how every operation ended, measured or not
 */
record RunResult(String service, long gets, long puts, long getTrips, long tornReads, double seconds, Histogram latency,
                 long digest, String failure, Outcomes outcomes) {
    static RunResult of(String service, RunControl control, List<LoadStats> connections) {
        Histogram latency = new Histogram(LoadStats.MAX_LATENCY, 3);
        long gets = 0;
        long puts = 0;
        long trips = 0;
        long torn = 0;
        long digest = 0;
        long lastEnd = control.start();
        long checked = 0;
        long acknowledged = 0;
        for (int i = 0; i < connections.size(); i++) {
            LoadStats s = connections.get(i);
            latency.add(s.latency);
            gets += s.gets;
            puts += s.puts;
            trips += s.getTrips;
            torn += s.tornReads;
            digest += KvLayout.mix(i + 1) * s.digest;
            lastEnd = Math.max(lastEnd, s.lastEnd);
            checked += s.checkedGets;
            acknowledged += s.acknowledgedPuts;
        }
        long end = control.stopAt() == Long.MAX_VALUE ? lastEnd : control.stopAt();
        return new RunResult(service, gets, puts, trips, torn, (end - control.measureFrom()) / 1e9, latency, digest,
                control.failure(), new Outcomes(control.startedOperations(), checked, acknowledged,
                        control.failedByStatus(), control.problems()));
    }

    /** A run that could not take place. */
    static RunResult failed(String service, String why) {
        return new RunResult(service, 0, 0, 0, 0, 0, new Histogram(LoadStats.MAX_LATENCY, 3), 0, why,
                Outcomes.NONE);
    }

    boolean ok() {
        return failure == null;
    }

    long operations() {
        return gets + puts;
    }

    /** Round trips per measured GET. */
    double tripsPerGet() {
        return gets > 0 ? (double) getTrips / gets : 0;
    }

    double throughput() {
        return seconds > 0 ? operations() / seconds : 0;
    }

    /** A latency percentile in microseconds. */
    double micros(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1e3;
    }
}
