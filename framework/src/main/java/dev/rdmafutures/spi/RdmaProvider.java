package dev.rdmafutures.spi;

import java.util.Optional;

/**
 * A transport, discovered with {@link java.util.ServiceLoader}. Implementations need a public no-argument
 * constructor and must be cheap to construct: discovery instantiates every provider on the class path.
 */
public interface RdmaProvider {
    /** The name users select it by, e.g. {@code soft} or {@code verbs}. */
    String name();

    /** Preference when the runtime chooses automatically: higher wins among available providers. */
    int autoSelectionPriority();

    /** Whether this provider can run here (devices, native libraries, JVM flags). */
    boolean isAvailable();

    /** Why {@link #isAvailable()} is false, precisely enough for a user to fix it; empty when available. */
    Optional<String> unavailabilityCause();

    /**
     * Opens the provider for one runtime.
     *
     * @throws dev.rdmafutures.RdmaException if the device cannot be opened or an option is invalid
     */
    ProviderDevice open(ProviderConfig config);
}
