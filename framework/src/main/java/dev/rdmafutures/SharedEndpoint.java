package dev.rdmafutures;

import java.net.InetSocketAddress;

/**
 * One local address and port that many outgoing connections share, each to a different destination (NDK's
 * {@code NDK_SHARED_ENDPOINT}); from {@link RdmaRuntime#sharedEndpoint(InetSocketAddress)} and used with
 * {@link ConnectBuilder#from(SharedEndpoint)}.
 *
 * <p>A second connection to a destination that already has one from this endpoint fails with
 * {@link Status#ADDRESS_ALREADY_EXISTS}; a listener may not bind the endpoint's port
 * ({@link Status#SHARING_VIOLATION}).
 */
public interface SharedEndpoint extends AutoCloseable {
    /** The shared local address, with the actual port when 0 was asked for. */
    InetSocketAddress localAddress();

    /** Releases the port reservation; connections already made stay up. New connects fail. Idempotent. */
    @Override
    void close();
}
