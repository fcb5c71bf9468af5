package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractQueueDepthConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftQueueDepthConformanceTest extends AbstractQueueDepthConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
