package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractSharedReceiveQueueConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftSharedReceiveQueueConformanceTest extends AbstractSharedReceiveQueueConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
