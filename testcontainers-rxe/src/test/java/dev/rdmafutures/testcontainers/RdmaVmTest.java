package dev.rdmafutures.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RdmaVmTest {
    @AfterEach
    void clear() {
        System.clearProperty(RdmaVm.SCRIPT_PROPERTY);
    }

    @Test
    void aMissingHarnessIsNamedAsTheReasonAndBuildingRefuses() {
        System.setProperty(RdmaVm.SCRIPT_PROPERTY, "/nonexistent/rdma-vm");
        assertThat(RdmaVm.unavailabilityCause()).get().asString().contains("rdma-vm was not found");
        assertThatThrownBy(() -> RdmaVm.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not found");
    }

    @Test
    void theBuilderValidatesItsSettings() {
        assertThatThrownBy(() -> RdmaVm.builder().devices("ib0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaVm.builder().cpus(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaVm.builder().memory("lots")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaVm.builder().timeout(java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theHostIsNotTheGuest() {
        assertThat(RdmaVm.isGuest()).isFalse();
    }
}
