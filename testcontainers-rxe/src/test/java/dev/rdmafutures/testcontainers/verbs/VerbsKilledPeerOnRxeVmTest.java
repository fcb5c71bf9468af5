package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link AbstractKilledPeerVmTest} on rxe0. */
@InRdmaVm(devices = "rxe")
class VerbsKilledPeerOnRxeVmTest extends AbstractKilledPeerVmTest {
    @Override
    String device() {
        return "rxe0";
    }
}
