package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractPollerConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftPollerConformanceTest extends AbstractPollerConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
