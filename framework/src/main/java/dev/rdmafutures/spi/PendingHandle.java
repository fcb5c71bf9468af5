package dev.rdmafutures.spi;

/** A two-phase connect the peer accepted. Poller thread only. */
public interface PendingHandle {
    /** Completes establishment; the attempt's {@link EstablishEvents#onEstablished} follows. */
    void complete();

    /** Abandons it; the attempt's {@link EstablishEvents#onFailed} follows with CANCELED. */
    void reject();
}
