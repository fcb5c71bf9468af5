package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.conformance.AbstractSoakTest;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;

/**
 * The soak on the verbs provider over rxe0: 64 connections rather than the host's 256, since each holds 3 MiB of
 * pinned memory and the guest has 2 GiB; 60 s.
 */
@InRdmaVm(devices = "rxe")
class VerbsSoakOnRxeVmTest extends AbstractSoakTest {
    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture("rxe0");
    }

    @Override
    protected String providerLabel() {
        return "verbs (rxe0)";
    }

    @Override
    protected int connections() {
        return 64;
    }
}
