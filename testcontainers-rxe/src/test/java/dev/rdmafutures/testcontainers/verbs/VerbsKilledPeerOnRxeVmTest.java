package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsKilledPeerVmTest} on rxe0. */
@InRdmaVm(devices = "rxe")
class VerbsKilledPeerOnRxeVmTest extends VerbsKilledPeerVmTest {
    @Override
    String device() {
        return "rxe0";
    }
}
