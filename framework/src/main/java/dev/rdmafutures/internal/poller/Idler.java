package dev.rdmafutures.internal.poller;

import dev.rdmafutures.IdleStrategy;

/** The poller's side of an {@link IdleStrategy}: called after every duty cycle with the work it did. */
abstract class Idler {
    /** What an idler may block on: the poller's event-source wait, bounded by its next deadline. */
    interface Blocker {
        void block(long maxNanos);
    }

    abstract void idle(int workCount);

    /**
     * The strategy's step after a cycle that did {@code workCount}, short of blocking, for a loop that blocks itself
     * (it has a queue of its own to watch): spins or yields and returns true, or returns false where the strategy
     * would block now.
     */
    abstract boolean idleWithoutBlocking(int workCount);

    static Idler of(IdleStrategy strategy, Blocker blocker) {
        return switch (strategy) {
            case BUSY_SPIN -> new Idler() {
                @Override
                void idle(int workCount) {
                    if (workCount == 0) {
                        Thread.onSpinWait();
                    }
                }

                @Override
                boolean idleWithoutBlocking(int workCount) {
                    idle(workCount);
                    return true;
                }
            };
            case YIELD -> new Idler() {
                @Override
                void idle(int workCount) {
                    if (workCount == 0) {
                        Thread.yield();
                    }
                }

                @Override
                boolean idleWithoutBlocking(int workCount) {
                    idle(workCount);
                    return true;
                }
            };
            case BACKOFF -> new Backoff(blocker);
            case BLOCKING -> new Idler() {
                @Override
                void idle(int workCount) {
                    if (workCount == 0) {
                        blocker.block(MAX_BLOCK_NANOS);
                    }
                }

                @Override
                boolean idleWithoutBlocking(int workCount) {
                    return false; // the caller's wait returns at once while there is work
                }
            };
        };
    }

    /** The longest a blocking wait lasts before the cycle re-checks its state. */
    static final long MAX_BLOCK_NANOS = 1_000_000_000L;

    /** Spin, then yield, then block: Agrona's BackoffIdleStrategy with the event source as the final stage. */
    static final class Backoff extends Idler {
        static final int SPINS = 200;
        static final int YIELDS = 20;
        private final Blocker blocker;
        private int idleCycles;

        Backoff(Blocker blocker) {
            this.blocker = blocker;
        }

        @Override
        void idle(int workCount) {
            if (!idleWithoutBlocking(workCount)) {
                blocker.block(MAX_BLOCK_NANOS);
            }
        }

        @Override
        boolean idleWithoutBlocking(int workCount) {
            if (workCount > 0) {
                idleCycles = 0;
                return true;
            }
            int n = idleCycles;
            if (n < SPINS + YIELDS) {
                idleCycles = n + 1;
            }
            if (n < SPINS) {
                Thread.onSpinWait();
                return true;
            }
            if (n < SPINS + YIELDS) {
                Thread.yield();
                return true;
            }
            return false;
        }
    }
}
