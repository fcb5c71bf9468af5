package dev.rdmafutures.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaDevicesTest {
    @TempDir
    Path sysfs;

    private void port(String device, int port, String state, String linkLayer) throws Exception {
        Path dir = Files.createDirectories(sysfs.resolve(device).resolve("ports").resolve(Integer.toString(port)));
        Files.writeString(dir.resolve("state"), state + "\n");
        Files.writeString(dir.resolve("link_layer"), linkLayer + "\n");
    }

    @Test
    void readsDevicesAndPortStatesAsSysfsShowsThem() throws Exception {
        port("siw0", 1, "4: ACTIVE", "Ethernet");
        port("rxe0", 1, "1: DOWN", "Ethernet");
        RdmaDevices devices = new RdmaDevices(sysfs);
        assertThat(devices.ports()).containsExactly(
                new RdmaDevices.Port("rxe0", 1, "1: DOWN", "Ethernet"),
                new RdmaDevices.Port("siw0", 1, "4: ACTIVE", "Ethernet"));
        assertThat(devices.absenceReason()).isEmpty();
    }

    @Test
    void namesTheExactReasonWhenNothingIsUsable() throws Exception {
        assertThat(new RdmaDevices(sysfs.resolve("missing")).absenceReason()).get().asString()
                .contains("does not exist");
        assertThat(new RdmaDevices(sysfs).absenceReason()).get().asString().contains("no verbs device");
        port("rxe0", 1, "1: DOWN", "Ethernet");
        assertThat(new RdmaDevices(sysfs).absenceReason()).get().asString().contains("no ACTIVE port");
    }
}
