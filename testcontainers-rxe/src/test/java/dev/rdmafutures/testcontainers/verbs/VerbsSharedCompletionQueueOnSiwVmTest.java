package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsSharedCompletionQueueVmTest} on siw0. */
@InRdmaVm(devices = "siw")
class VerbsSharedCompletionQueueOnSiwVmTest extends VerbsSharedCompletionQueueVmTest {
    @Override
    String device() {
        return "siw0";
    }
}
