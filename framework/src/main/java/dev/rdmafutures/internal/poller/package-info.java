/**
 * The poller: one duty-cycle agent per thread (the Agrona {@code Agent}/{@code IdleStrategy} model) that alone
 * owns its provider event loop, runs the commands other threads hand it, fires deadlines, and completes futures.
 *
 * <p>Internal: public only so that providers in other packages can be driven by it. Not API.
 */
package dev.rdmafutures.internal.poller;
