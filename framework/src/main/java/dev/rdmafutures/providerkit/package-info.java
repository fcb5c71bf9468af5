/**
 * What the built-in providers ({@code soft}, {@code verbs}) share beyond the SPI: a provider connection's life
 * ({@link dev.rdmafutures.providerkit.ConnectionLifecycle}), read-limit negotiation, ports shared between
 * endpoints, the lock-free queue a shared receive queue's receives wait in
 * ({@link dev.rdmafutures.providerkit.ManyToManyArrayQueue}, which the core's pool of a shared receive queue's
 * operations uses too), and the rate-limited log of what remote peers do wrong
 * ({@link dev.rdmafutures.providerkit.PeerFaultLog}). Exported to the verbs module only: the SPI that any other
 * provider implements holds interfaces and value types only, and these helpers stay free to change with the providers
 * that use them. They depend on the API and the SPI, never on the core's internals or on a provider.
 */
package dev.rdmafutures.providerkit;
