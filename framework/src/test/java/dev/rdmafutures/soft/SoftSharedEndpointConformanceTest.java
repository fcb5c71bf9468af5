package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractSharedEndpointConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftSharedEndpointConformanceTest extends AbstractSharedEndpointConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
