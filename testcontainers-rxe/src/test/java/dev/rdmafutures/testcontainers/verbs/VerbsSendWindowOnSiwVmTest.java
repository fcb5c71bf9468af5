package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsSendWindowVmTest} on siw0. */
@InRdmaVm(devices = "siw")
class VerbsSendWindowOnSiwVmTest extends VerbsSendWindowVmTest {
    @Override
    String device() {
        return "siw0";
    }
}
