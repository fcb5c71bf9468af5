package dev.rdmafutures.jmh;

/** Which completion API a benchmark posts through. */
public enum Api {
    /** {@code CompletableFuture<Completion>} per operation. */
    FUTURE,
    /** {@code CompletionCallback} with a context: no allocation in steady state. */
    CALLBACK
}
