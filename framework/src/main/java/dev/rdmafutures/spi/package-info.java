/**
 * The provider SPI: what a transport implements to plug into RdmaFutures, found through
 * {@link java.util.ServiceLoader} as {@link dev.rdmafutures.spi.RdmaProvider}.
 *
 * <p>Threading contract: a provider's {@link dev.rdmafutures.spi.EventLoop} and every handle it creates are used
 * only on the poller thread that owns the loop, except where a method says it is thread-safe. The framework does
 * argument validation, futures, deadlines and thread hand-off; providers report outcomes through the event
 * interfaces, each exactly once.
 */
package dev.rdmafutures.spi;
