/**
 * RdmaFutures: RDMA as {@link java.util.concurrent.CompletableFuture}s, with the semantics of Microsoft's NDKPI.
 * Applications use {@code dev.rdmafutures} (and {@code dev.rdmafutures.micrometer} to bind its counters to a
 * Micrometer registry); transports plug in through {@code dev.rdmafutures.spi}. Everything else
 * (the runtime's implementation, the pollers, the {@code soft} and {@code verbs} providers) is internal and not
 * exported.
 */
module dev.rdmafutures {
    requires org.slf4j;
    requires com.github.benmanes.caffeine;
    requires org.agrona.core;
    requires jdk.jfr; // connection and slow-operation events
    requires jdk.net; // TCP keepalive timing for soft connections
    requires static micrometer.core; // optional: only RdmaFuturesMetrics, for applications that use Micrometer
    requires disni; // DiSNI 2.1 has no module descriptor: this is its automatic module name

    exports dev.rdmafutures;
    exports dev.rdmafutures.spi;
    exports dev.rdmafutures.micrometer;

    uses dev.rdmafutures.spi.RdmaProvider;

    provides dev.rdmafutures.spi.RdmaProvider
            with dev.rdmafutures.soft.SoftProvider, dev.rdmafutures.verbs.VerbsProvider;
}
