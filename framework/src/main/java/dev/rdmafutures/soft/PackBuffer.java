package dev.rdmafutures.soft;

import java.nio.ByteBuffer;

/**
 * A contiguous direct buffer that one socket write packs runs of small queued buffers into (see
 * {@link OutboundQueue}), so that the socket takes each run as one buffer. One per poller, reused by every write it
 * makes; each run is a reused view of it, so packing allocates nothing. Poller thread only.
 */
final class PackBuffer {
    /** Room for a window of 64 small FPDUs and more; what does not fit goes unpacked. */
    static final int CAPACITY = 16 * 1024;

    private final ByteBuffer bytes = ByteBuffer.allocateDirect(CAPACITY);
    private final ByteBuffer[] runs;
    private int used;
    private int runCount;
    private ByteBuffer run;

    /** A pack buffer for writes of at most {@code maxRuns} runs. */
    PackBuffer(int maxRuns) {
        runs = new ByteBuffer[maxRuns];
        for (int i = 0; i < maxRuns; i++) {
            runs[i] = bytes.duplicate();
        }
    }

    /** Starts the next write: nothing packed. */
    void reset() {
        used = 0;
        runCount = 0;
        run = null;
    }

    /** Whether {@code length} more bytes fit. */
    boolean fits(int length) {
        return used + length <= CAPACITY;
    }

    /** Starts a run with a copy of {@code first}'s remaining bytes (its position unchanged); returns the run. */
    ByteBuffer startRun(ByteBuffer first) {
        run = runs[runCount++];
        run.clear().position(used).limit(used);
        append(first);
        return run;
    }

    /** Adds a copy of {@code next}'s remaining bytes (its position unchanged) to the current run. */
    void append(ByteBuffer next) {
        int length = next.remaining();
        bytes.put(used, next, next.position(), length);
        used += length;
        run.limit(used);
    }
}
