package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsKilledPeerVmTest} on siw0. */
@InRdmaVm(devices = "siw")
class VerbsKilledPeerOnSiwVmTest extends VerbsKilledPeerVmTest {
    @Override
    String device() {
        return "siw0";
    }
}
