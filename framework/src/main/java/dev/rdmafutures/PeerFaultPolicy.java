package dev.rdmafutures;

import java.time.Duration;
import java.util.Objects;

/**
 * How a runtime holds off a peer address whose connections keep breaking the rules; set with
 * {@link RdmaRuntime.Builder#peerFaultPolicy(PeerFaultPolicy)}.
 *
 * <p>A fault is something a provider detected in what a peer sent on an established connection: an access violation
 * (a forged or revoked token, bytes beyond a region, a right it lacks) or another protocol error, each of which ends
 * that connection. They are counted per peer IP address, since a peer that reconnects comes back on another port, in
 * a bucket that holds {@link #maxFaults()} and empties at {@link #maxFaults()} per {@link #window()}: a burst of
 * {@code maxFaults} fills it at once, and pacing the faults gains a peer no more than that rate. When it is full, the
 * runtime's listeners refuse the address's connection requests ({@link Status#CONNECTION_REFUSED} at the peer) for a
 * back-off: {@link #firstBackOff()} the first time, doubling each time the bucket fills again, up to
 * {@link #maxBackOff()}; a fault during a back-off stays in the bucket, so the first fault after it may start the next.
 * An address that makes no fault for longer than {@link #maxBackOff()} starts afresh. Its established connections are
 * left alone: each ends at its own next fault. Other addresses are not affected. The runtime's metrics count the
 * refusals and the back-offs ({@link RuntimeMetrics}), and each back-off is a JFR event
 * ({@code dev.rdmafutures.PeerBackOff}).
 *
 * <p>{@link #standard()} is the default: 8 faults an hour, a back-off from 1 s doubling up to an hour. A peer that
 * guesses tokens then makes about a dozen guesses in its first minute and at most 8 an hour from then on; against
 * 10,000 exposed regions the expected time to a first hit is about six years. A benign race does not count: a peer
 * whose READ reaches a region this side has just deregistered, or a window it has just rebound, uses a token this
 * side retired, which a provider tells apart from a forged one. {@link #disabled()} counts nothing: for a test harness
 * that injects faults on purpose, or peers that are all trusted. Which faults a provider reports is in its
 * documentation: {@code soft} reports the violations it terminates a connection for, except a Send that found no
 * receive posted (which the local side may have caused) and a token it retired moments ago. Immutable and
 * thread-safe.
 */
public final class PeerFaultPolicy {
    private static final PeerFaultPolicy STANDARD = new PeerFaultPolicy(8, Duration.ofHours(1),
            Duration.ofSeconds(1), Duration.ofHours(1));
    private static final PeerFaultPolicy DISABLED = new PeerFaultPolicy(0, Duration.ZERO, Duration.ZERO,
            Duration.ZERO);
    private final int maxFaults;
    private final Duration window;
    private final Duration firstBackOff;
    private final Duration maxBackOff;

    private PeerFaultPolicy(int maxFaults, Duration window, Duration firstBackOff, Duration maxBackOff) {
        this.maxFaults = maxFaults;
        this.window = window;
        this.firstBackOff = firstBackOff;
        this.maxBackOff = maxBackOff;
    }

    /** 8 faults an hour, then a back-off of 1 s that doubles up to an hour; the default. */
    public static PeerFaultPolicy standard() {
        return STANDARD;
    }

    /** No address is ever refused for its faults: for harnesses that make faults on purpose. */
    public static PeerFaultPolicy disabled() {
        return DISABLED;
    }

    /**
     * A policy of one's own.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} when {@code maxFaults} is below 1, a duration is not
     *                       positive or longer than a day, or {@code maxBackOff} is shorter than {@code firstBackOff}
     * @throws NullPointerException when a duration is null
     */
    public static PeerFaultPolicy of(int maxFaults, Duration window, Duration firstBackOff, Duration maxBackOff) {
        if (maxFaults < 1) {
            throw new RdmaException(Status.INVALID_PARAMETER, "maxFaults must be at least 1: " + maxFaults);
        }
        positive(window, "window");
        positive(firstBackOff, "firstBackOff");
        positive(maxBackOff, "maxBackOff");
        if (maxBackOff.compareTo(firstBackOff) < 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, "maxBackOff " + maxBackOff
                    + " is shorter than firstBackOff " + firstBackOff);
        }
        return new PeerFaultPolicy(maxFaults, window, firstBackOff, maxBackOff);
    }

    private static void positive(Duration duration, String name) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative() || duration.isZero() || duration.compareTo(Duration.ofDays(1)) > 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, name + " must be positive and at most a day: "
                    + duration);
        }
    }

    /** Whether faults are counted at all. */
    public boolean enabled() {
        return maxFaults > 0;
    }

    /** How many faults the bucket holds before a back-off starts; 0 when disabled. */
    public int maxFaults() {
        return maxFaults;
    }

    /** How long the bucket takes to empty of {@link #maxFaults()} faults. */
    public Duration window() {
        return window;
    }

    /** The first back-off of an address. */
    public Duration firstBackOff() {
        return firstBackOff;
    }

    /** The longest back-off, and how long an address must make no fault to start afresh. */
    public Duration maxBackOff() {
        return maxBackOff;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerFaultPolicy p && p.maxFaults == maxFaults && p.window.equals(window)
                && p.firstBackOff.equals(firstBackOff) && p.maxBackOff.equals(maxBackOff);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxFaults, window, firstBackOff, maxBackOff);
    }

    @Override
    public String toString() {
        return enabled() ? "PeerFaultPolicy.of(" + maxFaults + ", " + window + ", " + firstBackOff + ", "
                + maxBackOff + ")" : "PeerFaultPolicy.disabled()";
    }
}
