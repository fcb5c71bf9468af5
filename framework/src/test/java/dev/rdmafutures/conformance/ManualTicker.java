package dev.rdmafutures.conformance;

import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when a test advances it, so that a deadline is reached without waiting for it. */
public final class ManualTicker implements Ticker {
    private final AtomicLong now = new AtomicLong(System.nanoTime());

    @Override
    public long read() {
        return now.get();
    }

    /** Moves the clock forward by {@code by}. */
    public void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }

    /**
     * Returns once each of {@code runtime}'s pollers has begun and ended {@code cycles} more duty cycles: they saw
     * the clock as it is now, and ran what was due by it.
     */
    public static void awaitDutyCycles(RdmaRuntime runtime, int cycles) throws InterruptedException {
        long[] start = runtime.metrics().pollers().stream().mapToLong(PollerMetrics::dutyCycles).toArray();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long[] current = runtime.metrics().pollers().stream().mapToLong(PollerMetrics::dutyCycles).toArray();
            boolean all = true;
            for (int i = 0; i < start.length; i++) {
                all &= current[i] - start[i] > cycles; // the first may have begun before the clock moved
            }
            if (all) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the pollers ran fewer than " + cycles + " duty cycles in 10 s");
            }
            Thread.onSpinWait();
        }
    }
}
