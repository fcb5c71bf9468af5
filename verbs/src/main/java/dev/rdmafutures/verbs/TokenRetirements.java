package dev.rdmafutures.verbs;

/**
 * When this side last retired a token of one protection domain: a region peers could reach deregistered, a window
 * invalidated, rebound, replaced or closed. A peer whose READ or WRITE meets a token retired under it is not hostile,
 * only late, and the device does not say which token a refused access named; so a refusal is not counted against the
 * peer if the domain retired a token during its connection or shortly before ({@link PeerRefusals}). Thread-safe.
 */
final class TokenRetirements {
    private volatile boolean any;
    private volatile long lastNanos;

    /** This side retires a token of the domain: called before the token stops working. */
    void retired() {
        lastNanos = System.nanoTime();
        any = true;
    }

    /** Whether any was retired at or after {@code nanos} ({@link System#nanoTime()}). */
    boolean anySince(long nanos) {
        return any && lastNanos - nanos >= 0;
    }
}
