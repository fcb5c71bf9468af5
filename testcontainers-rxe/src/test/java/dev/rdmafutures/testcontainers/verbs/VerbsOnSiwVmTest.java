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

/** The provider-conformance suite on the verbs provider over siw0, inside one VM boot. */
@Tag("verbs-conformance") // bin/test-vm --verbs runs only these
@InRdmaVm(devices = "siw")
class VerbsOnSiwVmTest {
    /**
     * Where the suite cannot pass on siw, each with the kernel behaviour behind it, traced in siw's sources (built
     * from Debian 12's 6.1 kernel).
     */
    private static final Map<String, String> SIW_DIVERGENCES = Map.of(
            "aReadWithATokenThePeerRefusesFailsAndTerminates",
            "siw answers an RDMA Read without checking the region's remote-read right (siw_qp_tx.c checks a Read"
                    + " Response's memory with no permission bits), so the read succeeds",
            "aWriteThePeerRefusesLeavesItsMemoryUntouchedAndTerminates",
            "siw refuses the write and terminates, but does not report the Terminate's cause to the requester:"
                    + " its later requests are flushed (CANCELED), not ACCESS_VIOLATION",
            "aRevokedOrForgedTokenNeverExposesAByte",
            "siw refuses the revoked token and terminates, but the requester's read is flushed (CANCELED): the"
                    + " Terminate's cause does not reach user space",
            "aTerminationOverAProtocolErrorRunsBothSidesCallbacksOnce",
            "siw refuses the revoked token and terminates, but the requester's read is flushed (CANCELED): the"
                    + " Terminate's cause does not reach user space",
            "readLimitsNegotiateToTheMinimumInBothDirections",
            "siw's relaxed IRD negotiation (module parameter relaxed_ird_negotiation, on by default) raises the"
                    + " passive side's inbound limit to the active side's outbound request (8, not 6)");
    private static final ProviderFixture FIXTURE = new VerbsFixture("siw0", SIW_DIVERGENCES);

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

    /** siw allocates no memory windows: the suite checks that every call says NOT_SUPPORTED. */
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
