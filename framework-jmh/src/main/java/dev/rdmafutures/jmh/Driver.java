package dev.rdmafutures.jmh;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaRuntime;

/** How a benchmark's client runtime is driven. */
public enum Driver {
    /** {@code pollerThreads(0)}: the benchmark thread drives the client runtime itself (no hand-off). */
    INVOKED,
    /** A poller thread that busy-spins. */
    BUSY_SPIN,
    /** A poller thread that backs off (spin, yield, park). */
    BACKOFF,
    /** A poller thread that sleeps in the kernel when idle. */
    BLOCKING;

    /** {@code builder} with no poller thread (INVOKED) or one with this idle strategy. */
    RdmaRuntime.Builder configure(RdmaRuntime.Builder builder) {
        return this == INVOKED ? builder.pollerThreads(0)
                : builder.pollerThreads(1).idleStrategy(IdleStrategy.valueOf(name()));
    }
}
