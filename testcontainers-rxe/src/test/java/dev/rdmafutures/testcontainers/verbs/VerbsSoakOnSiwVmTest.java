package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsSoakVmTest} on siw0. */
@InRdmaVm(devices = "siw")
class VerbsSoakOnSiwVmTest extends VerbsSoakVmTest {
    @Override
    String device() {
        return "siw0";
    }
}
