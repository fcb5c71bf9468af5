package dev.rdmafutures.internal.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each idle strategy's steps, with a blocker that records its waits instead of waiting. */
class IdlerTest {
    private final List<Long> blocks = new ArrayList<>();
    private final Idler.Blocker blocker = blocks::add;

    @Test
    void backoffSpinsThenYieldsThenBlocksUntilACycleDoesWork() {
        Idler idler = Idler.of(IdleStrategy.BACKOFF, blocker);
        int steps = Idler.Backoff.SPINS + Idler.Backoff.YIELDS;
        for (int i = 0; i < steps; i++) {
            idler.idle(0);
        }
        assertThat(blocks).as("spins and yields do not block").isEmpty();
        idler.idle(0);
        idler.idle(0);
        assertThat(blocks).as("then every idle cycle blocks").containsExactly(Idler.MAX_BLOCK_NANOS,
                Idler.MAX_BLOCK_NANOS);

        idler.idle(3);
        for (int i = 0; i < steps; i++) {
            idler.idle(0);
        }
        assertThat(blocks).as("a cycle that did work starts a new run of spins").hasSize(2);
        idler.idle(0);
        assertThat(blocks).hasSize(3);
    }

    @Test
    void backoffWithoutBlockingSaysWhereItWouldBlockAndNeverBlocks() {
        Idler idler = Idler.of(IdleStrategy.BACKOFF, blocker);
        int steps = 0;
        while (idler.idleWithoutBlocking(0)) {
            steps++;
        }
        assertThat(steps).isEqualTo(Idler.Backoff.SPINS + Idler.Backoff.YIELDS);
        assertThat(idler.idleWithoutBlocking(0)).isFalse();
        assertThat(idler.idleWithoutBlocking(1)).isTrue();
        assertThat(idler.idleWithoutBlocking(0)).isTrue();
        assertThat(blocks).isEmpty();
    }

    @Test
    void blockingBlocksEveryIdleCycleAndLeavesTheWaitToAnOwnerThatWaitsItself() {
        Idler idler = Idler.of(IdleStrategy.BLOCKING, blocker);
        idler.idle(1);
        assertThat(blocks).as("after work, the next cycle at once").isEmpty();
        idler.idle(0);
        assertThat(blocks).containsExactly(Idler.MAX_BLOCK_NANOS);
        assertThat(idler.idleWithoutBlocking(0)).isFalse();
        assertThat(idler.idleWithoutBlocking(1)).as("its wait returns at once while there is work").isFalse();
    }

    @Test
    void spinningStrategiesNeverBlock() {
        for (IdleStrategy strategy : new IdleStrategy[] {IdleStrategy.BUSY_SPIN, IdleStrategy.YIELD}) {
            Idler idler = Idler.of(strategy, blocker);
            for (int i = 0; i < 1_000; i++) {
                idler.idle(0);
                assertThat(idler.idleWithoutBlocking(0)).isTrue();
            }
        }
        assertThat(blocks).isEmpty();
    }
}
