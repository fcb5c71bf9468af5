package dev.rdmafutures;

/**
 * How a poller waits when a duty cycle found no work (Agrona's idle strategies, plus a blocking wait on the provider's
 * event source): a poller thread after every cycle; an application-driven poller only where its owner asks
 * ({@link InvokedPoller#idleWithoutBlocking}), as the Netty transport's event loops do.
 */
public enum IdleStrategy {
    /** Spin on the CPU: lowest latency, one core per poller at 100%. */
    BUSY_SPIN,
    /** {@link Thread#yield()} between cycles: low latency, a core stays busy. */
    YIELD,
    /**
     * Spin, then yield, then block on the provider's event source (selector, completion channel) until work
     * arrives: near-spin latency under load, no CPU when idle. The default.
     */
    BACKOFF,
    /** Block on the provider's event source at once: least CPU, one wake-up per event. */
    BLOCKING
}
