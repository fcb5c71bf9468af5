package dev.rdmafutures.internal.poller;

import dev.rdmafutures.IdleStrategy;

/**
 * The poller's side of an {@link IdleStrategy}: a poller thread calls {@link #idle} after every duty cycle with the
 * work it did; the owner of an invoked poller that waits itself (a Netty event loop) calls
 * {@link #idleWithoutBlocking} and blocks where that says so.
 */
abstract class Idler {
    /** What an idler may block on: the poller's event-source wait, bounded by its next deadline. */
    interface Blocker {
        void block(long maxNanos);
    }

    /** The longest a blocking wait lasts before the cycle re-checks its state. */
    static final long MAX_BLOCK_NANOS = 1_000_000_000L;

    final Blocker blocker;

    Idler(Blocker blocker) {
        this.blocker = blocker;
    }

    /** The strategy's step after a cycle that did {@code workCount}, blocking where the strategy does. */
    void idle(int workCount) {
        if (!idleWithoutBlocking(workCount)) {
            blocker.block(MAX_BLOCK_NANOS);
        }
    }

    /**
     * The strategy's step after a cycle that did {@code workCount}, short of blocking: spins or yields (or, after
     * work, nothing) and returns true, or returns false where the strategy blocks now.
     */
    abstract boolean idleWithoutBlocking(int workCount);

    static Idler of(IdleStrategy strategy, Blocker blocker) {
        return switch (strategy) {
            case BUSY_SPIN -> new Idler(blocker) {
                @Override
                boolean idleWithoutBlocking(int workCount) {
                    if (workCount == 0) {
                        Thread.onSpinWait();
                    }
                    return true;
                }
            };
            case YIELD -> new Idler(blocker) {
                @Override
                boolean idleWithoutBlocking(int workCount) {
                    if (workCount == 0) {
                        Thread.yield();
                    }
                    return true;
                }
            };
            case BACKOFF -> new Backoff(blocker);
            case BLOCKING -> new Idler(blocker) {
                @Override
                void idle(int workCount) {
                    if (workCount == 0) {
                        blocker.block(MAX_BLOCK_NANOS);
                    }
                }

                /**
                 * Always false: an owner that waits itself waits first and polls after, and its wait returns at once
                 * while the runtime has work, so a poll of its own after work would only find nothing.
                 */
                @Override
                boolean idleWithoutBlocking(int workCount) {
                    return false;
                }
            };
        };
    }

    /** Spin, then yield, then block: Agrona's BackoffIdleStrategy with the event source as the final stage. */
    static final class Backoff extends Idler {
        static final int SPINS = 200;
        static final int YIELDS = 20;
        /** Idle cycles since the last that did work; stops counting at SPINS + YIELDS, where it blocks. */
        private int idleCycles;

        Backoff(Blocker blocker) {
            super(blocker);
        }

        @Override
        boolean idleWithoutBlocking(int workCount) {
            if (workCount > 0) {
                idleCycles = 0;
                return true;
            }
            int n = idleCycles;
            if (n >= SPINS + YIELDS) {
                return false;
            }
            idleCycles = n + 1;
            if (n < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            return true;
        }
    }
}
