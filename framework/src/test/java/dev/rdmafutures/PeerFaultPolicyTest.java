package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link PeerFaultPolicy}'s defaults and its validation. */
class PeerFaultPolicyTest {
    private static final Duration SECOND = Duration.ofSeconds(1);

    @Test
    void theStandardPolicyIsTheDocumentedOne() {
        PeerFaultPolicy standard = PeerFaultPolicy.standard();
        assertThat(standard.enabled()).isTrue();
        assertThat(standard).isEqualTo(PeerFaultPolicy.of(8, Duration.ofHours(1), SECOND, Duration.ofHours(1)));
        assertThat(standard.maxFaults()).isEqualTo(8);
        assertThat(PeerFaultPolicy.disabled().enabled()).isFalse();
        assertThat(PeerFaultPolicy.disabled().toString()).isEqualTo("PeerFaultPolicy.disabled()");
    }

    @Test
    void badPoliciesAreRefusedWithTheirReason() {
        assertInvalid(() -> PeerFaultPolicy.of(0, SECOND, SECOND, SECOND), "maxFaults must be at least 1");
        assertInvalid(() -> PeerFaultPolicy.of(1, Duration.ZERO, SECOND, SECOND), "window must be positive");
        assertInvalid(() -> PeerFaultPolicy.of(1, SECOND, SECOND.negated(), SECOND), "firstBackOff must be positive");
        assertInvalid(() -> PeerFaultPolicy.of(1, SECOND, SECOND, Duration.ofDays(2)), "maxBackOff must be positive");
        assertInvalid(() -> PeerFaultPolicy.of(1, SECOND, Duration.ofSeconds(2), SECOND), "is shorter than");
        assertThatThrownBy(() -> PeerFaultPolicy.of(1, null, SECOND, SECOND)).isInstanceOf(NullPointerException.class)
                .hasMessage("window");
        assertThatThrownBy(() -> RdmaRuntime.builder().peerFaultPolicy(null))
                .isInstanceOf(NullPointerException.class);
    }

    private static void assertInvalid(Runnable call, String message) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.status()).isEqualTo(Status.INVALID_PARAMETER)).hasMessageContaining(message);
    }
}
