package dev.rdmafutures.verbs;

import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.RdmaProvider;
import dev.rdmafutures.verbs.jni.NativeLibrary;
import java.io.File;
import java.util.Optional;

/**
 * Real RDMA devices through DiSNI and the project's libdisni. Available when the library loads (JVM flags and
 * library path as {@link NativeLibrary} reports) and the kernel shows an RDMA device.
 */
public final class VerbsProvider implements RdmaProvider {
    /** The name users select this provider by. */
    public static final String NAME = "verbs";
    private static final File DEVICES = new File("/sys/class/infiniband");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int autoSelectionPriority() {
        return 100;
    }

    @Override
    public boolean isAvailable() {
        return unavailabilityCause().isEmpty();
    }

    @Override
    public Optional<String> unavailabilityCause() {
        String[] devices = DEVICES.list();
        if (devices == null || devices.length == 0) {
            return Optional.of("no RDMA device: " + DEVICES + " is empty or missing (load rdma_rxe or siw and add a"
                    + " link, e.g. 'rdma link add rxe0 type rxe netdev eth0')");
        }
        return NativeLibrary.ensureLoaded();
    }

    @Override
    public ProviderDevice open(ProviderConfig config) {
        return DeviceOpener.open(config, unavailabilityCause());
    }
}
