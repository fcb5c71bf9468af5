package dev.rdmafutures.spi;

/**
 * A provider's per-poller event source and the objects it drives. Confined to its poller thread, except
 * {@link #wakeup()}.
 */
public interface EventLoop {
    /**
     * Learns, without blocking and without acting on it, what is ready now, within a budget the loop chooses (a
     * batch of completions per queue, one connection event per channel, the sockets a selection reports); returns
     * how much (0 when nothing is, or when it did not look: {@link #gatherLooked()}). The poller then runs the
     * commands other threads handed over so far, and only then calls {@link #dispatch()}: a command issued before an
     * event was learnt of (a cancel before the peer's reply) is handled before that event, and the loop never calls
     * back into the poller to keep that order.
     */
    int gather();

    /**
     * Whether the last {@link #gather()} looked at what is ready. A loop may skip the look in a gather that comes a
     * moment after its last one (soft: the poll right after the one that dispatched a blocking wait's keys); the
     * poller then runs no deadlines in that duty cycle, so whatever arrived by a deadline is still found before it
     * fires, and counts the cycle as busy, since it did not learn that nothing is ready.
     */
    default boolean gatherLooked() {
        return true;
    }

    /**
     * Acts on what the last {@link #gather()} reported (events, completions, bytes read), once; returns the work done.
     * What it produces for the wire (responses, acknowledgements, the next posts) may wait for {@link #flush()}.
     */
    int dispatch();

    /**
     * Hands the wire everything this loop queued since the last flush: posts, responses and acknowledgements leave
     * together, one gathering write per socket or one chained post per queue pair, instead of one system call or
     * doorbell each. The poller calls it after the commands of a duty cycle (so a lone operation leaves at once) and
     * at the end of every duty cycle, before it idles; nothing queued waits for a later cycle. Returns the work done
     * (0 when nothing was queued).
     */
    int flush();

    /**
     * Blocks until something is ready, {@link #wakeup()} is called, or {@code maxNanos} pass; returns at once when
     * the next {@link #gather()} would find something without waiting (completions or bytes already there, also ones
     * a budget left behind), since the poller may wait before it gathers.
     */
    void await(long maxNanos);

    /** Makes a blocked or the next {@link #await} return at once. Thread-safe. */
    void wakeup();

    /** Starts a connect; the outcome comes through {@code events}. A closed loop fails it with CANCELED. */
    ConnectAttempt connect(ConnectSpec spec, ConnectionEvents connectionEvents, ConnectEvents events);

    /** Starts accepting on a bound listener; requests come through {@code events}. */
    void listen(BoundListener listener, ListenEvents events);

    /**
     * Closes everything this loop drives: attempts fail with CANCELED, connections end with RUNTIME_CLOSED,
     * listeners stop. Later calls fail their operations the same way.
     */
    void close();
}
