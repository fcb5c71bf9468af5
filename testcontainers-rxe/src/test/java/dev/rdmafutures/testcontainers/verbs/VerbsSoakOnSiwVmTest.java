package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.conformance.AbstractSoakTest;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;

/**
 * The soak on the verbs provider over siw0: 64 connections rather than the host's 256, since each holds 3 MiB of
 * pinned memory and the guest has 2 GiB; 60 s.
 */
@InRdmaVm(devices = "siw")
class VerbsSoakOnSiwVmTest extends AbstractSoakTest {
    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture("siw0");
    }

    @Override
    protected String providerLabel() {
        return "verbs (siw0)";
    }

    @Override
    protected int connections() {
        return 64;
    }
}
