package dev.rdmafutures.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.PeerFaultPolicy;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How {@link PeerFaults} counts faults per address and times back-offs, on a clock the test sets. */
class PeerFaultsTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private final RuntimeRecorder recorder = new RuntimeRecorder("test", Duration.ofMillis(10));
    private final PeerFaults faults = new PeerFaults(PeerFaultPolicy.of(2, Duration.ofSeconds(10),
            Duration.ofSeconds(1), Duration.ofSeconds(4)), recorder);

    private static InetAddress address(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    }

    /** Two faults at {@code now}: enough to start a back-off once none runs. */
    private void trip(InetAddress a, long now) {
        faults.fault(a, now);
        faults.fault(a, now);
    }

    @Test
    void theBackOffDoublesUpToTheMaximumAndEndsOnTime() throws Exception {
        InetAddress a = address(1);
        long now = 0;
        for (long expected : new long[] {1, 2, 4, 4}) {
            trip(a, now);
            assertThat(faults.refuses(a, now + expected * SECOND - 1)).as("within %d s", expected).isTrue();
            assertThat(faults.refuses(a, now + expected * SECOND)).as("after %d s", expected).isFalse();
            now += expected * SECOND;
        }
        assertThat(recorder.peerBackOffs()).isEqualTo(4);
        assertThat(recorder.peerRefusals()).isEqualTo(4);
    }

    @Test
    void anAddressThatNeverStopsStaysAtTheLongestBackOff() throws Exception {
        long day = Duration.ofDays(1).toNanos();
        PeerFaults daily = new PeerFaults(PeerFaultPolicy.of(1, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofDays(1)), recorder);
        InetAddress a = address(1);
        long now = 0;
        for (int trip = 0; trip < 100; trip++) { // far past the doublings a long could hold
            long expected = Math.min(day, SECOND << Math.min(trip, 20));
            daily.fault(a, now);
            assertThat(daily.refuses(a, now + expected - 1)).as("trip %d, within its back-off", trip).isTrue();
            now += expected;
            assertThat(daily.refuses(a, now)).as("trip %d, after its back-off", trip).isFalse();
        }
        assertThat(recorder.peerBackOffs()).isEqualTo(100);
    }

    @Test
    void faultsDuringABackOffDoNotExtendIt() throws Exception {
        InetAddress a = address(1);
        trip(a, 0);
        trip(a, SECOND / 2); // its connections still open fault meanwhile
        assertThat(faults.refuses(a, SECOND)).isFalse();
        assertThat(recorder.peerBackOffs()).isEqualTo(1);
    }

    @Test
    void anAddressWithoutFaultsForLongerThanTheLongestBackOffStartsAfresh() throws Exception {
        InetAddress a = address(1);
        trip(a, 0);
        trip(a, SECOND); // the second back-off: 2 s, until 3 s
        trip(a, SECOND + 4 * SECOND + 1); // no fault for longer than 4 s: a first back-off again, 1 s
        assertThat(faults.refuses(a, 6 * SECOND)).isTrue();
        assertThat(faults.refuses(a, 6 * SECOND + 1)).isFalse();
    }

    @Test
    void pacingFaultsBelowTheLimitGainsNoMoreThanTheBucketsRate() throws Exception {
        InetAddress a = address(1);
        // The bucket holds 2 and empties at 2 per 10 s: one fault every 6 s stays below that rate and never fills it,
        // one every 4 s (2.5 per 10 s) fills it after a few.
        for (int i = 0; i < 20; i++) {
            faults.fault(a, i * 6 * SECOND);
        }
        assertThat(recorder.peerBackOffs()).as("one fault every 6 s").isZero();
        InetAddress b = address(2);
        for (int i = 0; i < 20; i++) {
            faults.fault(b, i * 4 * SECOND);
        }
        assertThat(recorder.peerBackOffs()).as("one fault every 4 s").isPositive();
    }

    @Test
    void otherAddressesAndFaultsSpreadOverTheWindowAreNotRefused() throws Exception {
        trip(address(1), 0);
        assertThat(faults.refuses(address(2), 1)).isFalse();
        faults.fault(address(3), 0);
        faults.fault(address(3), 10 * SECOND); // a new window: one fault in it
        assertThat(faults.refuses(address(3), 10 * SECOND)).isFalse();
    }

    @Test
    void aDisabledPolicyAndAnUnknownAddressAreNeverRefused() throws Exception {
        PeerFaults disabled = new PeerFaults(PeerFaultPolicy.disabled(), recorder);
        for (int i = 0; i < 100; i++) {
            disabled.fault(address(1), i);
        }
        assertThat(disabled.refuses(address(1), 100)).isFalse();
        faults.fault(null, 0);
        assertThat(faults.refuses(null, 0)).isFalse();
    }

    @Test
    void theLeastRecentlyHeardAddressesAreForgottenBeyondTheBound() throws Exception {
        InetAddress first = address(1);
        trip(first, 0);
        for (int i = 0; i < PeerFaults.MAX_ADDRESSES; i++) {
            faults.fault(InetAddress.getByAddress(new byte[] {10, 1, (byte) (i >> 8), (byte) i}), 1);
        }
        assertThat(faults.refuses(first, 2)).as("forgotten, with its back-off").isFalse();
    }
}
