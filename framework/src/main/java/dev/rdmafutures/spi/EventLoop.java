package dev.rdmafutures.spi;

/**
 * A provider's per-poller event source and the objects it drives. Confined to its poller thread, except
 * {@link #wakeup()}.
 */
public interface EventLoop {
    /** Processes whatever is ready without blocking; returns the amount of work done (0 when idle). */
    int poll();

    /** Blocks until something is ready, {@link #wakeup()} is called, or {@code maxNanos} pass. */
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
