package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractDataPathConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftDataPathConformanceTest extends AbstractDataPathConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
