package dev.rdmafutures.verbs;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The tokens this side retired in one protection domain: regions deregistered, windows invalidated, rebound,
 * replaced or closed. A peer whose READ or WRITE meets a token retired under it is not hostile, only late, and the
 * device does not say which token a refused access named; so a refusal is not counted against the peer if the domain
 * retired a token while the peer's connection was up or shortly before ({@link PeerRefusals}). Thread-safe.
 */
final class TokenRetirements {
    private final AtomicLong count = new AtomicLong();
    private volatile long lastNanos;

    /** This side retires a token of the domain: called before the token stops working. */
    void retired() {
        lastNanos = System.nanoTime();
        count.incrementAndGet();
    }

    /** How many so far: a connection compares the count at its end with the one at its start. */
    long count() {
        return count.get();
    }

    /** Whether any was retired within {@code nanos} before now ({@link System#nanoTime()}). */
    boolean anyWithin(long nanos) {
        return count.get() > 0 && System.nanoTime() - lastNanos < nanos;
    }
}
