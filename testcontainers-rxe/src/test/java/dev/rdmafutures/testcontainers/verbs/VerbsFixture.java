package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.conformance.ProviderFixture;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.Map;

/** The verbs provider on one VM device (rxe0 or siw0), both bound to the VM's eth0, and what the device does otherwise. */
record VerbsFixture(String device, Map<String, String> knownDivergences) implements ProviderFixture {
    /** How long a disconnect may take before the connection is closed regardless. */
    static final Duration DISCONNECT_TIMEOUT = Duration.ofSeconds(2);

    VerbsFixture(String device) {
        this(device, Map.of());
    }

    @Override
    public RdmaRuntime.Builder runtimeBuilder() {
        return RdmaRuntime.builder().provider("verbs").providerOption("verbs.device", device)
                .connectTimeout(Duration.ofSeconds(10))
                .handshakeTimeout(Duration.ofSeconds(5))
                .disconnectTimeout(DISCONNECT_TIMEOUT);
    }

    @Override
    public InetAddress deviceAddress() {
        try {
            return NetworkInterface.getByName("eth0").inetAddresses()
                    .filter(a -> a.getAddress().length == 4).findFirst().orElseThrow();
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }
}
