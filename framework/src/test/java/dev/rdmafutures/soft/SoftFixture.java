package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.conformance.ProviderFixture;
import java.net.InetAddress;
import java.time.Duration;

/** The soft provider on loopback, with short timeouts so that failure paths finish quickly. */
final class SoftFixture implements ProviderFixture {
    static final SoftFixture INSTANCE = new SoftFixture();
    /** How long a graceful disconnect waits for the peer, here. */
    static final Duration DISCONNECT_TIMEOUT = Duration.ofSeconds(2);

    @Override
    public RdmaRuntime.Builder runtimeBuilder() {
        return RdmaRuntime.builder().provider("soft")
                .connectTimeout(Duration.ofSeconds(10))
                .handshakeTimeout(Duration.ofSeconds(5))
                .disconnectTimeout(DISCONNECT_TIMEOUT);
    }

    @Override
    public InetAddress deviceAddress() {
        return InetAddress.getLoopbackAddress();
    }
}
