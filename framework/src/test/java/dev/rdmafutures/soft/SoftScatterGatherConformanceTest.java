package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractScatterGatherConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftScatterGatherConformanceTest extends AbstractScatterGatherConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
