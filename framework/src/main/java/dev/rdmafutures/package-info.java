/**
 * RdmaFutures' public API: RDMA with NDK's semantics, every operation completing a
 * {@link java.util.concurrent.CompletableFuture} (or, allocation-free, a {@link dev.rdmafutures.CompletionCallback}).
 *
 * <p>Start with {@link dev.rdmafutures.RdmaRuntime#builder()}: a runtime opens one provider ({@code soft}, pure Java
 * iWARP over TCP; {@code verbs}, real RDMA devices) and drives it with its poller threads. What the adapter can do is
 * in {@link dev.rdmafutures.AdapterInfo}; every refusal is an {@link dev.rdmafutures.RdmaException} with an
 * NTSTATUS-like {@link dev.rdmafutures.Status}.
 *
 * <p>The overview page of this Javadoc maps each NDKPI call to its counterpart here.
 */
package dev.rdmafutures;
