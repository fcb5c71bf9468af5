package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.spi.WorkRequest;
import org.junit.jupiter.api.Test;

/**
 * Send-queue completions matched by slot and reported in posting order: siw completes a WRITE as soon as it is sent,
 * before the response to an earlier READ arrives, and a READ's unsignalled parts complete only when they fail.
 */
class PostedSendsTest {
    private static final int REM_ACCESS_ERR = VerbsErrors.WC_REM_ACCESS_ERR;

    /** A WRITE that is nothing but its name. */
    private static NamedRequest named(String name) {
        return new NamedRequest(WorkRequest.Kind.WRITE, name);
    }

    private static long post(PostedSends sends, String name, int sequence) {
        long id = sends.nextId(sequence);
        sends.add(named(name), sequence, sequence * 3);
        return id;
    }

    @Test
    void aWriteCompletedBeforeAnEarlierReadIsReportedAfterIt() {
        PostedSends sends = new PostedSends(4);
        long read = post(sends, "read", 7);
        long write = post(sends, "write", 8);
        assertThat(sends.complete(write, false, VerbsErrors.WC_SUCCESS, 0)).isTrue();
        assertThat(sends.oldestDone()).as("the read is still outstanding").isFalse();
        assertThat(sends.complete(read, false, VerbsErrors.WC_SUCCESS, 0)).isTrue();
        assertThat(sends.oldestSucceeded()).isTrue();
        assertThat(sends.oldestToken()).as("the token it was added with").isEqualTo(21);
        assertThat(sends.poll()).isEqualTo(named("read"));
        assertThat(sends.oldestSucceeded()).isTrue();
        assertThat(sends.oldestToken()).isEqualTo(24);
        assertThat(sends.poll()).isEqualTo(named("write"));
        assertThat(sends.poll()).isNull();
    }

    @Test
    void aFailedPartIsTheReadsOutcomeAndAStrayPartMatchesNothing() {
        PostedSends sends = new PostedSends(2);
        int failedPost = 1; // posted half-way, never added: its parts' ids name the next request's slot
        long stray = sends.nextId(failedPost);
        long read = post(sends, "read", 2);
        assertThat(stray & 0xFF_FFFF).isEqualTo(read & 0xFF_FFFF);
        assertThat(sends.complete(stray, true, REM_ACCESS_ERR, 1)).isFalse();
        assertThat(sends.complete(read, true, REM_ACCESS_ERR, 5)).isTrue();
        assertThat(sends.oldestDone()).as("a part is not the request's end").isFalse();
        assertThat(sends.complete(read, false, VerbsErrors.WC_WR_FLUSH_ERR, 0)).isTrue();
        assertThat(sends.oldestStatus()).isEqualTo(REM_ACCESS_ERR);
        assertThat(sends.oldestVendorError()).isEqualTo(5);
        assertThat(sends.oldestSucceeded()).isFalse();
    }

    @Test
    void theRequestsARefusedChainDidNotPostAreTakenBackInOrderAndTheirSlotsServeTheNext() {
        PostedSends sends = new PostedSends(4);
        post(sends, "posted", 1);
        long refused = post(sends, "refused", 2);
        post(sends, "behind", 3);
        assertThat(sends.removeNewest(2)).containsExactly(named("refused"), named("behind"));
        // A part of the refused READ that reached the device matches nothing, neither now nor once its slot is
        // taken again.
        assertThat(sends.complete(refused, true, REM_ACCESS_ERR, 0)).isFalse();
        long next = post(sends, "next", 4);
        assertThat(next & 0xFF_FFFF).isEqualTo(refused & 0xFF_FFFF);
        assertThat(sends.complete(refused, true, REM_ACCESS_ERR, 0)).isFalse();
        assertThat(sends.poll()).isEqualTo(named("posted"));
        assertThat(sends.poll()).isEqualTo(named("next"));
        assertThat(sends.poll()).isNull();
    }

    @Test
    void slotsComeBackInTurnAroundTheRing() {
        PostedSends sends = new PostedSends(2);
        for (int i = 0; i < 5; i++) {
            long id = post(sends, "op" + i, 100 + i);
            assertThat(sends.complete(id, false, VerbsErrors.WC_SUCCESS, 0)).isTrue();
            assertThat(sends.poll()).isEqualTo(named("op" + i));
        }
    }
}
