package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.conformance.AbstractConnectionConformanceTest;
import dev.rdmafutures.conformance.AbstractDataPathConformanceTest;
import dev.rdmafutures.conformance.AbstractFastRegisterConformanceTest;
import dev.rdmafutures.conformance.AbstractLifecycleConformanceTest;
import dev.rdmafutures.conformance.AbstractMemoryWindowConformanceTest;
import dev.rdmafutures.conformance.AbstractMetricsConformanceTest;
import dev.rdmafutures.conformance.AbstractPollerConformanceTest;
import dev.rdmafutures.conformance.AbstractProtectionDomainConformanceTest;
import dev.rdmafutures.conformance.AbstractQueueDepthConformanceTest;
import dev.rdmafutures.conformance.AbstractRefusalConformanceTest;
import dev.rdmafutures.conformance.AbstractScatterGatherConformanceTest;
import dev.rdmafutures.conformance.AbstractSharedEndpointConformanceTest;
import dev.rdmafutures.conformance.AbstractSharedReceiveQueueConformanceTest;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The provider-conformance suite on the verbs provider over rxe0, inside one VM boot. */
@Tag("verbs-conformance") // bin/test-vm --verbs runs only these
@InRdmaVm(devices = "rxe")
class VerbsOnRxeVmTest {
    private static final ProviderFixture FIXTURE = new VerbsFixture("rxe0", Map.of());

    @Nested
    class Connection extends AbstractConnectionConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class SharedEndpoint extends AbstractSharedEndpointConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class Poller extends AbstractPollerConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class Lifecycle extends AbstractLifecycleConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class DataPath extends AbstractDataPathConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class QueueDepth extends AbstractQueueDepthConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class Refusal extends AbstractRefusalConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    /** rxe binds type-2 windows; it checks an access against the region, so the span case is skipped. */
    @Nested
    class ProtectionDomain extends AbstractProtectionDomainConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class MemoryWindow extends AbstractMemoryWindowConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class Metrics extends AbstractMetricsConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    /** libibverbs fast-registers for kernel users only: the suite checks that every call says NOT_SUPPORTED. */
    @Nested
    class FastRegister extends AbstractFastRegisterConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class ScatterGather extends AbstractScatterGatherConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }

    @Nested
    class SharedReceiveQueue extends AbstractSharedReceiveQueueConformanceTest {
        @Override
        protected ProviderFixture fixture() {
            return FIXTURE;
        }
    }
}
