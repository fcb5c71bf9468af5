package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.testcontainers.InRdmaVm;

/** {@link VerbsSharedCompletionQueueVmTest} on rxe0. */
@InRdmaVm(devices = "rxe")
class VerbsSharedCompletionQueueOnRxeVmTest extends VerbsSharedCompletionQueueVmTest {
    @Override
    String device() {
        return "rxe0";
    }
}
