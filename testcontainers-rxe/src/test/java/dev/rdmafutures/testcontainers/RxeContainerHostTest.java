package dev.rdmafutures.testcontainers;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Testcontainers module end to end on this machine, for hosts that have Docker and an rxe device of their own
 * ({@code bin/test-rxe-docker} sets them up): {@link RxeContainerScenario} on {@code -Drxe.device} (default rxe0)
 * over {@code -Drxe.netdev} (default eth0). Skipped, with the exact reason, where either is missing.
 */
@Tag("rxe-host")
class RxeContainerHostTest {
    private static final String DEVICE = System.getProperty("rxe.device", "rxe0");

    @BeforeEach
    void dockerAndDevice() throws Exception { // per test, so that a skip is reported with its reason
        RxeContainerScenario.assumeDockerAndDevice(DEVICE);
    }

    @Test
    void theContainerSeesTheDeviceActiveAndAPeerInItIsReadOverRdma() throws Exception {
        RxeContainerScenario.readFromAPeerInAContainer(DEVICE,
                RxeContainerScenario.deviceAddress(System.getProperty("rxe.netdev", "eth0")));
    }
}
