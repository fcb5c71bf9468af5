package dev.rdmafutures.spi;

import dev.rdmafutures.RdmaException;

/** A two-phase connect the peer accepted. Poller thread only. */
public interface PendingHandle {
    /** Completes establishment; the attempt's {@link EstablishEvents#onEstablished} follows. */
    void complete();

    /**
     * Abandons it; the attempt's {@link EstablishEvents#onFailed} follows with CANCELED, and the peer's accept fails
     * with CONNECTION_ABORTED.
     */
    void reject();

    /**
     * The connector's deadline passed before anyone completed or rejected it: abandons it and tells the peer that
     * it was never completed, so the peer's accept fails with IO_TIMEOUT (NdkAcceptEx), not CONNECTION_ABORTED.
     * The attempt's {@link EstablishEvents#onFailed} follows with {@code timeout}.
     */
    void expire(RdmaException timeout);
}
