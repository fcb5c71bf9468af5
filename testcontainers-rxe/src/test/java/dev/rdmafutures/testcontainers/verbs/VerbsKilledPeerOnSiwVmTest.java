package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link AbstractKilledPeerVmTest} on siw0. */
@InRdmaVm(devices = "siw")
class VerbsKilledPeerOnSiwVmTest extends AbstractKilledPeerVmTest {
    @Override
    String device() {
        return "siw0";
    }
}
