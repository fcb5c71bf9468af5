package dev.rdmafutures.conformance;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One row of {@code bin/faults}' table per fault test, logged at info by logger
 * {@code dev.rdmafutures.conformance.FaultRows} (silent in {@code bin/test}, where tests log warnings only): fault,
 * provider, operations in flight, how their futures ended, time to detect, whether the runtime went on serving, what
 * was verified.
 */
public final class FaultRows {
    private static final Logger LOG = LoggerFactory.getLogger(FaultRows.class);

    private FaultRows() {
    }

    /** Logs one row; {@code provider} names the provider and, where it matters, its device. */
    public static void row(String fault, String provider, long inFlight, Object outcomes, String detected,
                           String serving, String verified) {
        LOG.info("FAULT-ROW | {} | {} | {} | {} | {} | {} | {} |", fault, provider, inFlight, outcomes, detected,
                serving, verified);
    }
}
