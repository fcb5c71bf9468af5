package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractRefusalConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftRefusalConformanceTest extends AbstractRefusalConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
