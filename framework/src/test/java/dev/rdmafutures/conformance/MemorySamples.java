package dev.rdmafutures.conformance;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heap and direct memory over a soak: sampled every few seconds (logged at debug), and measured after a full GC at
 * the end of the warm-up and at the end, so that growth between the two is what the run kept, not garbage.
 */
final class MemorySamples {
    private static final Logger LOG = LoggerFactory.getLogger(MemorySamples.class);
    private static final long MIB = 1 << 20;
    private static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
    private long heapAtWarmUp = -1;
    private long directAtWarmUp = -1;
    private long heapAtEnd = -1;
    private long directAtEnd = -1;
    private long heapPeak;

    /** Samples until {@code end} (System.nanoTime), measuring after GC once {@code warmedUp} has passed. */
    void sampleUntil(long end, long warmedUp) {
        long start = System.nanoTime();
        long nextSample = start;
        while (System.nanoTime() - end < 0) {
            long now = System.nanoTime();
            if (heapAtWarmUp < 0 && now - warmedUp >= 0) {
                heapAtWarmUp = heapAfterGc();
                directAtWarmUp = direct.getMemoryUsed();
                LOG.debug("warmed up: heap after GC {} MiB, direct {} MiB", heapAtWarmUp / MIB, directAtWarmUp / MIB);
            }
            if (now - nextSample >= 0) {
                long heap = memory.getHeapMemoryUsage().getUsed();
                heapPeak = Math.max(heapPeak, heap);
                LOG.debug("t={} s heap {} MiB direct {} MiB", TimeUnit.NANOSECONDS.toSeconds(now - start),
                        heap / MIB, direct.getMemoryUsed() / MIB);
                nextSample += PERIOD_NANOS;
            }
            // Parked until the next thing due: a sample, the warm-up's measurement (once), or the end.
            Waits.parkUntil(earliest(end, earliest(nextSample, heapAtWarmUp < 0 ? warmedUp : end)));
        }
    }

    /** The earlier of two System.nanoTime instants (compared by difference, as nanoTime may wrap). */
    private static long earliest(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    void sampleAtEnd() {
        heapAtEnd = heapAfterGc();
        directAtEnd = direct.getMemoryUsed();
    }

    long heapGrowth() {
        return heapAtEnd - heapAtWarmUp;
    }

    long directGrowth() {
        return directAtEnd - directAtWarmUp;
    }

    private long heapAfterGc() {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    @Override
    public String toString() {
        return String.format("heap after GC %.1f MiB at the warm-up's end, %.1f MiB at the end (peak %d MiB); "
                        + "direct %.1f MiB, then %.1f MiB", heapAtWarmUp / (double) MIB, heapAtEnd / (double) MIB,
                heapPeak / MIB, directAtWarmUp / (double) MIB, directAtEnd / (double) MIB);
    }
}
