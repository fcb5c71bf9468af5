package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractSoakTest;
import dev.rdmafutures.conformance.ProviderFixture;

/** The soak on the soft provider over loopback (bin/faults). */
class SoftSoakTest extends AbstractSoakTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    @Override
    protected String providerLabel() {
        return "soft";
    }
}
