package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractLifecycleConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftLifecycleConformanceTest extends AbstractLifecycleConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
