package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import java.io.IOException;

/**
 * What a loop of this service does after a poll, as {@link IdleStrategy} defines it for the runtime's pollers, so that
 * the loops the samples run themselves (the load thread around the RDMA client runtime's {@code poll()}, both TCP
 * selector threads around {@code selectNow}) wait as the RDMA server's poller does: BUSY_SPIN spins, YIELD yields,
 * BACKOFF spins {@value #SPINS} times, yields {@value #YIELDS} times and then blocks (Agrona's backoff, the poller's
 * constants), BLOCKING blocks at once. Blocking is the loop's own wait for work, e.g. a selector's {@code select}.
 * Not thread-safe: one per loop.
 */
final class Idler {
    static final int SPINS = 200;
    static final int YIELDS = 20;

    /** A loop's blocking wait for work: returns the work it found (and did). */
    interface Block {
        int await() throws IOException;
    }

    private final IdleStrategy strategy;
    private final Block block;
    private int idleCycles;

    /** {@code block} may be null only for {@link IdleStrategy#BUSY_SPIN} and {@link IdleStrategy#YIELD}. */
    Idler(IdleStrategy strategy, Block block) {
        if (block == null && (strategy == IdleStrategy.BACKOFF || strategy == IdleStrategy.BLOCKING)) {
            throw new IllegalArgumentException(strategy + " needs a way to block");
        }
        this.strategy = strategy;
        this.block = block;
    }

    /** Called after each poll with the work it found: waits as the strategy says when there was none. */
    void idle(int work) throws IOException {
        if (work > 0) {
            idleCycles = 0;
            return;
        }
        switch (strategy) {
            case BUSY_SPIN -> Thread.onSpinWait();
            case YIELD -> Thread.yield();
            case BLOCKING -> block.await();
            case BACKOFF -> {
                int n = idleCycles++;
                if (n < SPINS) {
                    Thread.onSpinWait();
                } else if (n < SPINS + YIELDS) {
                    Thread.yield();
                } else if (block.await() > 0) {
                    idleCycles = 0;
                }
            }
        }
    }
}
