package dev.rdmafutures;

import java.time.Duration;
import java.util.Objects;

/**
 * How a runtime holds off a peer address whose connections keep breaking the rules; set with
 * {@link RdmaRuntime.Builder#peerFaultPolicy(PeerFaultPolicy)}.
 *
 * <p>A fault is something a provider detected in what a peer sent on an established connection: an access violation
 * (a forged or revoked token, bytes beyond a region, a right it lacks) or another protocol error, each of which ends
 * that connection. They are counted per peer IP address, since a peer that reconnects comes back on another port.
 * When an address reaches {@link #maxFaults()} faults within {@link #window()}, the runtime's listeners refuse its
 * connection requests ({@link Status#CONNECTION_REFUSED} at the peer) for a back-off: {@link #firstBackOff()} the first
 * time, doubling each time the address trips the limit again, up to {@link #maxBackOff()}. An address quiet for
 * {@link #maxBackOff()} after its last back-off starts afresh. Its established connections are left alone: each ends
 * at its own next fault. Other addresses are not affected. The runtime's metrics count the refusals and the
 * back-offs ({@link RuntimeMetrics}), and each back-off is a JFR event ({@code dev.rdmafutures.PeerBackOff}).
 *
 * <p>{@link #standard()} is the default: 8 faults in 10 s, a back-off from 1 s doubling up to an hour. A peer that
 * guesses tokens then makes a few dozen guesses in its first minute and at most 8 an hour after about an hour; against
 * 10,000 exposed regions the expected time to a first hit exceeds six years. {@link #disabled()} counts nothing.
 * Which faults a provider reports is in its documentation: {@code soft} reports the violations it terminates a
 * connection for. Immutable and thread-safe.
 */
public final class PeerFaultPolicy {
    private static final PeerFaultPolicy STANDARD = new PeerFaultPolicy(8, Duration.ofSeconds(10),
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

    /** 8 faults in 10 s, then a back-off of 1 s that doubles up to an hour; the default. */
    public static PeerFaultPolicy standard() {
        return STANDARD;
    }

    /** No address is ever refused for its faults. */
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

    /** The faults within {@link #window()} that start a back-off; 0 when disabled. */
    public int maxFaults() {
        return maxFaults;
    }

    /** The span in which {@link #maxFaults()} faults start a back-off. */
    public Duration window() {
        return window;
    }

    /** The first back-off of an address. */
    public Duration firstBackOff() {
        return firstBackOff;
    }

    /** The longest back-off, and how long an address must stay quiet after one to start afresh. */
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
