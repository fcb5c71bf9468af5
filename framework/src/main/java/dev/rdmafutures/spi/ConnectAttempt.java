package dev.rdmafutures.spi;

import dev.rdmafutures.RdmaException;

/** A connect in progress. Poller thread only. */
public interface ConnectAttempt {
    /** Aborts it (deadline, cancellation, close); {@link EstablishEvents#onFailed} follows with {@code error} unless already reported. */
    void abort(RdmaException error);
}
