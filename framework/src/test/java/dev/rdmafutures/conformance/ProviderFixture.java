package dev.rdmafutures.conformance;

import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.util.Map;

/**
 * What a provider tells the conformance suite: how to build its runtimes and which local address its device
 * answers on. A provider runs the suite by subclassing each {@code Abstract*ConformanceTest} with its fixture.
 */
public interface ProviderFixture {
    /** A builder for this provider, already set up for tests (short handshake and disconnect timeouts are fine). */
    RdmaRuntime.Builder runtimeBuilder();

    /** The address listeners bind and connects target, e.g. loopback for soft, the rxe0/siw0 address for verbs. */
    InetAddress deviceAddress();

    /**
     * Tests this provider's device cannot pass for a reason outside the provider (a kernel driver's behaviour),
     * by method name, each with that reason: they are skipped and the reason reported. Empty by default.
     */
    default Map<String, String> knownDivergences() {
        return Map.of();
    }
}
