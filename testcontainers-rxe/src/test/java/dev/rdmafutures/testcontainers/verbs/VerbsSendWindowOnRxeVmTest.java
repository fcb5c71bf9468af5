package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsSendWindowVmTest} on rxe0. */
@InRdmaVm(devices = "rxe")
class VerbsSendWindowOnRxeVmTest extends VerbsSendWindowVmTest {
    @Override
    String device() {
        return "rxe0";
    }
}
