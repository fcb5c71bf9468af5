package dev.rdmafutures.spi;

import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.ReadLimits;
import java.net.InetSocketAddress;

/**
 * A validated connect request.
 *
 * @param destination   the listener's address
 * @param localAddress  the source address to bind, or null for any
 * @param sharedAddress the shared endpoint to connect from, or null
 * @param readLimits    the limits asked for (not yet capped to the adapter)
 * @param queueDepths   the queue depths to create the QP with, already capped to the adapter; the core never has
 *                      more requests outstanding than these
 * @param domain        the protection domain the QP is created in
 * @param sharedReceiveQueue the shared receive queue the QP takes its receives from (of {@code domain}), or null for
 *                      its own
 * @param privateData   the request's private data, within the adapter's limit
 * @param twoPhase      whether to stop after the peer accepts and report {@link ConnectEvents#onAccepted}
 */
public record ConnectSpec(InetSocketAddress destination, InetSocketAddress localAddress, SharedAddress sharedAddress,
                          ReadLimits readLimits, QueueDepths queueDepths, ProviderDomain domain,
                          ProviderSharedReceiveQueue sharedReceiveQueue, byte[] privateData, boolean twoPhase) {
}
