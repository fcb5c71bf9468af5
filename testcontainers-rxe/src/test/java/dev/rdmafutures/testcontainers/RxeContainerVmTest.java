package dev.rdmafutures.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Testcontainers module end to end inside the VM, where this class starts dockerd and imports the local image
 * ({@code vm/docker-in-vm.sh}): {@link RxeContainerScenario} on rxe0.
 */
@InRdmaVm(devices = "rxe")
class RxeContainerVmTest {
    private static final String DEVICE = "rxe0";

    @BeforeAll
    static void dockerAndDevice() throws Exception {
        Path script = Path.of(System.getProperty("user.dir")).resolve("vm/docker-in-vm.sh");
        Process p = new ProcessBuilder("bash", script.toString()).inheritIO().start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("docker-in-vm.sh finished").isTrue();
        RxeContainerScenario.assumeDockerAndDevice(DEVICE);
    }

    @Test
    void theContainerSeesTheDeviceActiveAndAPeerInItIsReadOverRdma() throws Exception {
        RxeContainerScenario.readFromAPeerInAContainer(DEVICE, RxeContainerScenario.deviceAddress("eth0"));
    }
}
