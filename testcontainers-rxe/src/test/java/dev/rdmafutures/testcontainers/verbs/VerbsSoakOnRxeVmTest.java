package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsSoakVmTest} on rxe0. */
@InRdmaVm(devices = "rxe")
class VerbsSoakOnRxeVmTest extends VerbsSoakVmTest {
    @Override
    String device() {
        return "rxe0";
    }
}
