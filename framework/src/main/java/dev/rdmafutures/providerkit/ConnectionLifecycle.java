package dev.rdmafutures.providerkit;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.EstablishEvents;
import dev.rdmafutures.spi.ProviderConnection;

/**
 * The life of one provider connection, the same for every provider: the phase that decides what a post, a
 * disconnect or a transport event means, and the exactly-once reports to the core. A provider keeps its own
 * handshake steps (address resolution, MPA request and reply) inside {@link Phase#ESTABLISHING}; everything after
 * them goes through this class, so establishment ends once, with one outcome, and an established connection ends
 * once, with one reason. Poller thread only.
 *
 * <pre>
 *  ESTABLISHING ──accepted()──▶ PENDING ──┐
 *       │ └──────────established()────────┴─▶ ESTABLISHED ──disconnecting()──▶ DISCONNECTING
 *       │ failed()                                 │ ended()                         │ ended()
 *       ▼                                          ▼                                 ▼
 *     CLOSED ◀─────────────────────────────────────┴─────────────────────────────────┘
 * </pre>
 */
public final class ConnectionLifecycle {
    /** Where a connection is. */
    public enum Phase {
        /** The provider's handshake runs; nothing is reported yet. */
        ESTABLISHING,
        /** Two-phase connect: the peer accepted, the connector has not completed or rejected. */
        PENDING,
        /** Up: requests may be posted. */
        ESTABLISHED,
        /** A graceful disconnect runs; requests fail with CONNECTION_INVALID. */
        DISCONNECTING,
        /** Over: establishment failed, or the connection ended; reported, resources released. */
        CLOSED
    }

    private Phase phase = Phase.ESTABLISHING;
    private EstablishEvents establishEvents;
    private ConnectionEvents connectionEvents;

    /** A lifecycle whose outcome is not yet wired: the passive side learns its listeners when the request is answered. */
    public ConnectionLifecycle() {
    }

    /** A lifecycle reporting establishment to {@code establish} and the established connection's end to {@code connection}. */
    public ConnectionLifecycle(EstablishEvents establish, ConnectionEvents connection) {
        report(establish, connection);
    }

    /** Wires where outcomes go (the passive side, when the request is accepted). */
    public void report(EstablishEvents establish, ConnectionEvents connection) {
        this.establishEvents = establish;
        this.connectionEvents = connection;
    }

    /** The current phase. */
    public Phase phase() {
        return phase;
    }

    /** Whether requests may be posted. */
    public boolean isEstablished() {
        return phase == Phase.ESTABLISHED;
    }

    /** Whether establishment is still under way (handshake or pending). */
    public boolean isEstablishing() {
        return phase == Phase.ESTABLISHING || phase == Phase.PENDING;
    }

    /** Whether the connection was established and has not yet been reported as ended. */
    public boolean isUp() {
        return phase == Phase.ESTABLISHED || phase == Phase.DISCONNECTING;
    }

    /** Whether everything is over. */
    public boolean isClosed() {
        return phase == Phase.CLOSED;
    }

    /** The peer accepted a two-phase connect: ESTABLISHING to PENDING. Returns false in any other phase. */
    public boolean accepted() {
        return move(Phase.ESTABLISHING, Phase.PENDING);
    }

    /**
     * Establishment succeeded: reports {@link EstablishEvents#onEstablished} once. Returns false (reporting nothing)
     * unless the connection was establishing.
     */
    public boolean established(ProviderConnection connection, ConnectionData data) {
        if (!isEstablishing()) {
            return false;
        }
        phase = Phase.ESTABLISHED;
        EstablishEvents events = establishEvents;
        establishEvents = null;
        if (events != null) {
            events.onEstablished(connection, data);
        }
        return true;
    }

    /**
     * Establishment failed: CLOSED, and {@link EstablishEvents#onFailed} once, if anyone listens yet. Returns false
     * (reporting nothing) unless the connection was establishing.
     */
    public boolean failed(RdmaException error) {
        if (!isEstablishing()) {
            return false;
        }
        phase = Phase.CLOSED;
        EstablishEvents events = establishEvents;
        establishEvents = null;
        connectionEvents = null;
        if (events != null) {
            events.onFailed(error);
        }
        return true;
    }

    /** A graceful disconnect starts: ESTABLISHED to DISCONNECTING. Returns false in any other phase. */
    public boolean disconnecting() {
        return move(Phase.ESTABLISHED, Phase.DISCONNECTING);
    }

    /**
     * The established connection is over: CLOSED, and {@link ConnectionEvents#onDisconnected} once. Returns false
     * (reporting nothing) unless it was up.
     */
    public boolean ended(DisconnectReason reason) {
        if (!isUp()) {
            return false;
        }
        phase = Phase.CLOSED;
        ConnectionEvents events = connectionEvents;
        connectionEvents = null;
        if (events != null) {
            events.onDisconnected(reason);
        }
        return true;
    }

    /** Closes without a report: a request that was never answered, or a transport released after its report. */
    public void close() {
        phase = Phase.CLOSED;
        establishEvents = null;
        connectionEvents = null;
    }

    private boolean move(Phase from, Phase to) {
        if (phase != from) {
            return false;
        }
        phase = to;
        return true;
    }

    @Override
    public String toString() {
        return phase.name();
    }
}
