package dev.rdmafutures.spi;

import java.net.InetSocketAddress;
import java.time.Duration;

/** The services a poller offers the event loop it owns. */
public interface PollerContext {
    /**
     * Runs {@code command} on this poller's thread. Thread-safe.
     *
     * @return false if the poller is shutting down and will not run it
     */
    boolean execute(Runnable command);

    /** Runs {@code task} on this poller's thread after {@code delay}. Poller thread only. */
    Cancellable schedule(Duration delay, Runnable task);

    /**
     * Now, on the clock {@link #schedule} counts on (the runtime's {@code Ticker}), in nanoseconds from an arbitrary
     * origin: what a provider measures silences and ages with, so that a test's clock moves them too.
     */
    long nanoTime();

    /** Whether the caller is this poller's thread. */
    boolean inPollerThread();

    /** Counts and logs (once per distinct cause) an error that a provider contained. */
    void recordError(String where, Throwable error);

    /**
     * The peer at {@code peer} (not null) made a fault on an established connection: an access violation or another
     * protocol error the provider ended the connection for. The runtime counts it against the peer's IP address; once
     * the address has made more faults than the runtime's {@code PeerFaultPolicy} allows, the runtime's listeners
     * refuse it for a while. Thread-safe.
     */
    void peerFault(InetSocketAddress peer);
}
