package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractMetricsConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftMetricsConformanceTest extends AbstractMetricsConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
