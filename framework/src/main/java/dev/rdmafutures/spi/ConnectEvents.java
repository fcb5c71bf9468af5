package dev.rdmafutures.spi;

import dev.rdmafutures.ConnectionData;

/**
 * Outcomes of an active connect. For a two-phase connect, {@link #onAccepted} comes first and the attempt then
 * waits for {@link PendingHandle#complete()} or {@link PendingHandle#reject()}; its final outcome still arrives
 * through {@link #onEstablished} or {@link #onFailed}.
 */
public interface ConnectEvents extends EstablishEvents {
    /** The peer accepted a two-phase connect. */
    void onAccepted(PendingHandle pending, ConnectionData data);
}
