package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.conformance.AbstractSoakTest;
import dev.rdmafutures.conformance.ProviderFixture;

/**
 * The soak on a verbs device of the VM: 64 connections rather than the host's 256, since each holds 3 MiB of pinned
 * memory and the guest has 2 GiB; 60 s.
 */
abstract class VerbsSoakVmTest extends AbstractSoakTest {
    /** The device, {@code rxe0} or {@code siw0}. */
    abstract String device();

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture(device());
    }

    @Override
    protected String providerLabel() {
        return "verbs (" + device() + ")";
    }

    @Override
    protected int connections() {
        return 64;
    }
}
