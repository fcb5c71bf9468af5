package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractFastRegisterConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftFastRegisterConformanceTest extends AbstractFastRegisterConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
