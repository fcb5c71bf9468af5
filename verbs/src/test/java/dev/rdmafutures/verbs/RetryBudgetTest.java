package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry budget verbs gives its queue pairs from {@code livenessTimeout}. */
class RetryBudgetTest {

    @Test
    void theDefaultTenSecondsGiveThreeRetriesOfTwoSeconds() {
        RetryBudget budget = RetryBudget.within(Duration.ofSeconds(10));
        assertThat(budget).isEqualTo(new RetryBudget(19, 3)); // 4 x 2.147 s; 20 x 2 ties, fewer retries
        assertThat(budget.duration().toMillis()).isEqualTo(8589);
        assertThat(budget.ackTimeoutDuration().toMillis()).isEqualTo(2147);
    }

    @Test
    void twoSecondsGiveSevenTriesOfAQuarterSecond() {
        RetryBudget budget = RetryBudget.within(Duration.ofSeconds(2));
        assertThat(budget).isEqualTo(new RetryBudget(16, 6));
        assertThat(budget.duration().toMillis()).isEqualTo(1879);
    }

    @Test
    void theBudgetIsNeverAboveTheDeadlineNorBelowHalfOfItAndAlwaysEnds() {
        for (long millis = 1; millis <= 3_600_000; millis = millis * 3 / 2 + 1) {
            Duration liveness = Duration.ofMillis(millis);
            RetryBudget budget = RetryBudget.within(liveness);
            assertThat(budget.duration()).as("for %s", liveness).isLessThanOrEqualTo(liveness)
                    .isGreaterThan(liveness.dividedBy(2));
            assertThat(budget.retryCount()).as("7 is infinite on rxe").isBetween(0, RetryBudget.MAX_RETRY_COUNT);
            assertThat(budget.ackTimeout()).as("0 disables the timer").isBetween(1, 31);
        }
    }

    @Test
    void aDeadlineShorterThanOneTryGetsTheShortestBudget() {
        assertThat(RetryBudget.within(Duration.ofNanos(1000))).isEqualTo(new RetryBudget(1, 0));
    }
}
