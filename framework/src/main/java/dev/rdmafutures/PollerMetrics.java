package dev.rdmafutures;

import java.time.Duration;

/**
 * One poller's duty cycle at one moment (Agrona's duty-cycle counters): how many cycles it ran, how many found
 * work, and the time spent in cycles that found work against the time since it started.
 *
 * @param name       the poller's thread name (or the invoked poller's name)
 * @param dutyCycles cycles run
 * @param workCycles cycles that found work (commands, completions, connection events, deadlines)
 * @param busy       time spent in cycles that found work
 * @param uptime     time since the poller started
 */
public record PollerMetrics(String name, long dutyCycles, long workCycles, Duration busy, Duration uptime) {
    /** The share of its uptime the poller spent idle or in cycles that found nothing, 0..1. */
    public double idleRatio() {
        long up = uptime.toNanos();
        return up <= 0 ? 1.0 : Math.min(1.0, Math.max(0.0, 1.0 - (double) busy.toNanos() / up));
    }
}
