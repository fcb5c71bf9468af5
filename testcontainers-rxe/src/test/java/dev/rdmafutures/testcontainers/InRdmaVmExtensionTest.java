package dev.rdmafutures.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

class InRdmaVmExtensionTest {
    /** Run only through the test kit below: as a nested class surefire leaves it alone, and its tag is {@code vm}. */
    @InRdmaVm(devices = "rxe")
    static class NeedsTheVm {
        @Test
        void first() {
            fail("ran on a host without the VM");
        }

        @Test
        void second() {
            fail("ran on a host without the VM");
        }
    }

    @AfterEach
    void clear() {
        System.clearProperty(RdmaVm.SCRIPT_PROPERTY);
    }

    @Test
    void withoutAVmEveryTestIsSkippedWithTheReasonNotSilentlyDropped() {
        System.setProperty(RdmaVm.SCRIPT_PROPERTY, "/nonexistent/rdma-vm");

        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(NeedsTheVm.class)).execute()
                .testEvents();

        tests.assertStatistics(stats -> stats.skipped(2).started(0).failed(0));
        List<String> reasons = tests.skipped().stream()
                .map(event -> event.getPayload(String.class).orElse("")).toList();
        assertThat(reasons).hasSize(2).allSatisfy(reason -> assertThat(reason)
                .startsWith("no RDMA VM here: ").contains("rdma-vm was not found"));
    }
}
