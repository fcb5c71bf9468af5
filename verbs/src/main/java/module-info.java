/**
 * The {@code verbs} provider: real RDMA devices (rxe, siw, RoCE and iWARP NICs, InfiniBand) through IBM DiSNI 2.1 and
 * this project's own {@code libdisni}. An application adds this module beside {@code dev.rdmafutures}; the runtime
 * finds the provider through {@link java.util.ServiceLoader} and selects it by the name {@code verbs}. Nothing here
 * is exported: applications use the API of {@code dev.rdmafutures} only.
 */
module dev.rdmafutures.verbs {
    requires dev.rdmafutures;
    requires org.slf4j;
    requires org.agrona.core;
    requires disni; // DiSNI 2.1 has no module descriptor: this is its automatic module name

    provides dev.rdmafutures.spi.RdmaProvider with dev.rdmafutures.verbs.VerbsProvider;
}
