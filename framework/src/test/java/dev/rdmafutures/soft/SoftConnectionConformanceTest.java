package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractConnectionConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftConnectionConformanceTest extends AbstractConnectionConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
