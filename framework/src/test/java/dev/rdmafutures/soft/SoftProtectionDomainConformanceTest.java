package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractProtectionDomainConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;

class SoftProtectionDomainConformanceTest extends AbstractProtectionDomainConformanceTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }
}
