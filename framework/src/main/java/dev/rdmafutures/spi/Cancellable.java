package dev.rdmafutures.spi;

/** Something scheduled that can be called off; cancelling twice or after it ran does nothing. */
public interface Cancellable {
    /** Calls it off. */
    void cancel();
}
