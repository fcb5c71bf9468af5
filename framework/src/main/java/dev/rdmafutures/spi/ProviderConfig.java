package dev.rdmafutures.spi;

import java.time.Duration;
import java.util.Map;

/**
 * What a runtime hands its provider.
 *
 * @param options           provider-specific options, from {@code RdmaRuntime.Builder#providerOption}; a provider
 *                          rejects keys it does not know
 * @param handshakeTimeout  how long a passive side waits for a peer's connect request, and for the peer to
 *                          complete after our accept
 * @param disconnectTimeout how long a graceful disconnect waits for the peer before closing abortively
 * @param livenessTimeout   how long an established connection's peer may show no life while it owes us something
 *                          before the connection ends (soft's deadline; verbs' queue pair retry budget)
 */
public record ProviderConfig(Map<String, String> options, Duration handshakeTimeout, Duration disconnectTimeout,
                             Duration livenessTimeout) {
    /** Copies the options. */
    public ProviderConfig {
        options = Map.copyOf(options);
    }
}
