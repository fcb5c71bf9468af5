package dev.rdmafutures.soft;

import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.RdmaProvider;
import java.util.Optional;

/** The {@code soft} provider: iWARP over the JDK's TCP sockets, available wherever Java runs. */
public final class SoftProvider implements RdmaProvider {
    /** The name to select it by. */
    public static final String NAME = "soft";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int autoSelectionPriority() {
        return 0;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return Optional.empty();
    }

    @Override
    public ProviderDevice open(ProviderConfig config) {
        return new SoftDevice(config);
    }
}
