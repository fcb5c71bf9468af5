package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractMemoryWindowConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftMemoryWindowConformanceTest extends AbstractMemoryWindowConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
