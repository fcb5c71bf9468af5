/**
 * RdmaFutures: RDMA as {@link java.util.concurrent.CompletableFuture}s, with the semantics of Microsoft's NDKPI.
 * Applications use {@code dev.rdmafutures} (and {@code dev.rdmafutures.micrometer} to bind its counters to a
 * Micrometer registry); transports plug in through {@code dev.rdmafutures.spi}. Everything else
 * (the runtime's implementation, the pollers, the embedded {@code soft} provider) is internal and not exported.
 * The {@code verbs} provider is the module {@code dev.rdmafutures.verbs}, in an artifact of its own, so that an
 * application on {@code soft} carries neither DiSNI nor a native library.
 */
// The verbs module is built after this one, so javac cannot see the target of the qualified export below.
@SuppressWarnings("module")
module dev.rdmafutures {
    requires org.slf4j;
    requires com.github.benmanes.caffeine;
    requires jdk.jfr; // connection and slow-operation events
    requires jdk.net; // TCP keepalive timing for soft connections
    requires static micrometer.core; // optional: only RdmaFuturesMetrics, for applications that use Micrometer

    exports dev.rdmafutures;
    exports dev.rdmafutures.spi;
    exports dev.rdmafutures.micrometer;
    // What the built-in providers share; only the verbs module, which ships with this one, may use it.
    exports dev.rdmafutures.providerkit to dev.rdmafutures.verbs;

    uses dev.rdmafutures.spi.RdmaProvider;

    provides dev.rdmafutures.spi.RdmaProvider
            with dev.rdmafutures.soft.SoftProvider;
}
