package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link OperationFlags}: a set whose every combination is a shared constant. */
class OperationFlagsTest {
    private static final OperationFlags[] SINGLE = {OperationFlags.SILENT_SUCCESS, OperationFlags.READ_FENCE,
            OperationFlags.RDMA_READ_LOCAL_INVALIDATE, OperationFlags.DEFER};

    @Test
    void combiningReturnsTheSharedConstantWhateverTheOrder() {
        OperationFlags a = OperationFlags.SILENT_SUCCESS.and(OperationFlags.DEFER);
        OperationFlags b = OperationFlags.DEFER.and(OperationFlags.SILENT_SUCCESS).and(OperationFlags.NONE);
        assertThat(a).isSameAs(b);
        assertThat(a.and(a)).isSameAs(a);
        assertThat(OperationFlags.NONE.and(OperationFlags.READ_FENCE)).isSameAs(OperationFlags.READ_FENCE);
    }

    @Test
    void containsTellsEachFlagApart() {
        OperationFlags all = OperationFlags.NONE;
        for (OperationFlags flag : SINGLE) {
            assertThat(OperationFlags.NONE.contains(flag)).isFalse();
            all = all.and(flag);
        }
        for (OperationFlags flag : SINGLE) {
            assertThat(all.contains(flag)).isTrue();
            assertThat(flag.contains(OperationFlags.NONE)).isTrue();
            for (OperationFlags other : SINGLE) {
                assertThat(flag.contains(other)).isEqualTo(flag == other);
            }
        }
        assertThat(OperationFlags.NONE.isEmpty()).isTrue();
        assertThat(all.isEmpty()).isFalse();
        assertThat(all).hasToString("OperationFlags[SILENT_SUCCESS, READ_FENCE, RDMA_READ_LOCAL_INVALIDATE, DEFER]");
        assertThat(OperationFlags.NONE).hasToString("OperationFlags[]");
    }
}
