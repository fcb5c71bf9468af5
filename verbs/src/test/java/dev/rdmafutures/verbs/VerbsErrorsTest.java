package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Status;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** How a failed native call's IOException, as our libdisni words it, becomes a typed error. */
class VerbsErrorsTest {

    @Test
    void theErrnoInTheMessageChoosesTheStatus() {
        IOException invalid = new IOException("_createQP: rdma_create_qp failed: Invalid argument (errno 22)");
        assertThat(VerbsErrors.errnoOf(invalid)).isEqualTo(VerbsErrors.EINVAL);
        assertThat(VerbsErrors.of(invalid, false, "create a queue pair").status())
                .isEqualTo(Status.INVALID_PARAMETER);
        IOException memory = new IOException("_createCQ: ibv_create_cq failed: Cannot allocate memory (errno 12)");
        assertThat(VerbsErrors.of(memory, false, "create a completion queue").status())
                .isEqualTo(Status.INSUFFICIENT_RESOURCES);
    }

    @Test
    void aFailureWithoutErrnoIsAResourceShortageNotAStaleErrno() {
        // libsiw fails a queue mapping without setting errno once a process holds 144 queue pages: the native side
        // clears errno before the call and says so, instead of passing on an earlier call's EAGAIN.
        IOException none = new IOException("_createQP: rdma_create_qp failed, no errno given");
        assertThat(VerbsErrors.errnoOf(none)).isZero();
        assertThat(VerbsErrors.of(none, false, "create a queue pair").status())
                .isEqualTo(Status.INSUFFICIENT_RESOURCES);
    }
}
