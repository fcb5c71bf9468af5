package dev.rdmafutures.internal.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.EventLoop;
import dev.rdmafutures.spi.ListenEvents;
import dev.rdmafutures.spi.PollerContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The duty cycle's order, kept by {@link Poller#doWork} alone: commands, a flush, the event loop's gather, the
 * commands handed over meanwhile, its dispatch, the commands the dispatch issued, then one flush. The event loop here
 * only records what the poller asks of it, so the order seen is the poller's.
 */
class PollerDutyCycleTest {
    private final List<String> steps = new ArrayList<>();
    private final RecordingLoop loop = new RecordingLoop();
    /** The test's clock: it moves only when a test moves it. */
    private long now;
    private final Poller poller = new Poller("duty-cycle-test", IdleStrategy.BUSY_SPIN, () -> now,
            new DutyCycleErrors(), (address, nanoTime) -> { }, context -> loop.attach(context),
            true, Thread.currentThread());

    @AfterEach
    void close() {
        poller.close(Duration.ofSeconds(5));
    }

    @Test
    void commandsHandedOverWhileEventsWereGatheredRunBeforeTheyAreDispatched() {
        poller.execute(() -> steps.add("command issued before the cycle"));
        loop.ready = 1;
        loop.duringGather = () -> loop.context.execute(() -> steps.add("command issued while gathering"));
        poller.invoke();
        assertThat(steps).containsExactly("command issued before the cycle", "flush", "gather",
                "command issued while gathering", "dispatch", "flush");
    }

    @Test
    void whatTheDispatchPostsRunsBeforeTheCyclesFlushNotInTheNextCycle() {
        loop.ready = 1;
        // A completion callback on the poller posting its next operation: the command goes to the poller's own queue.
        loop.duringDispatch = () -> loop.context.execute(() -> steps.add("command issued by the dispatch"));
        poller.invoke();
        assertThat(steps).containsExactly("gather", "dispatch", "command issued by the dispatch", "flush");
    }

    @Test
    void aDeadlinePassedDuringTheDispatchWaitsForTheNextGather() {
        // A handshake's deadline, and its event already waiting: the dispatch of an earlier event runs past the
        // deadline (a cold channelActive), so the event is still to be read when the deadline falls due.
        loop.context.schedule(Duration.ofSeconds(5), () -> steps.add("deadline"));
        loop.ready = 1;
        loop.duringDispatch = () -> now += Duration.ofSeconds(7).toNanos();
        poller.invoke();
        assertThat(steps).containsExactly("gather", "dispatch", "flush");
        steps.clear();
        loop.duringDispatch = () -> { };
        poller.invoke();
        assertThat(steps).as("the event read by this gather goes first").containsExactly("gather", "dispatch",
                "deadline", "flush");
    }

    @Test
    void aGatherThatDidNotLookLeavesDueDeadlinesToTheNextThatDoesAndIsNotIdle() {
        // soft's poll right after a wait's poll: it skips the look, and bytes that came by the deadline are unread.
        loop.context.schedule(Duration.ofSeconds(5), () -> steps.add("deadline"));
        now += Duration.ofSeconds(7).toNanos();
        loop.ready = 0;
        loop.looked = false;
        assertThat(poller.invoke()).as("work of a cycle that did not look").isPositive();
        assertThat(steps).containsExactly("gather", "flush");
        steps.clear();
        loop.ready = 1;
        loop.looked = true;
        poller.invoke();
        assertThat(steps).as("what this gather found goes first").containsExactly("gather", "dispatch", "deadline",
                "flush");
    }

    @Test
    void nothingGatheredIsNothingDispatchedAndTheCycleStillFlushesOnce() {
        loop.ready = 0;
        poller.invoke();
        assertThat(steps).containsExactly("gather", "flush");
    }

    /** An event loop that records each call the poller makes and reports what the test sets as ready. */
    private final class RecordingLoop implements EventLoop {
        PollerContext context;
        int ready;
        boolean looked = true;
        Runnable duringGather = () -> { };
        Runnable duringDispatch = () -> { };

        EventLoop attach(PollerContext poller) {
            this.context = poller;
            return this;
        }

        @Override
        public int gather() {
            steps.add("gather");
            duringGather.run();
            return ready;
        }

        @Override
        public boolean gatherLooked() {
            return looked;
        }

        @Override
        public int dispatch() {
            steps.add("dispatch");
            duringDispatch.run();
            return ready;
        }

        @Override
        public int flush() {
            steps.add("flush");
            return 0;
        }

        @Override
        public void await(long maxNanos) {
        }

        @Override
        public void wakeup() {
        }

        @Override
        public ConnectAttempt connect(ConnectSpec spec, ConnectionEvents connectionEvents, ConnectEvents events) {
            throw new UnsupportedOperationException("no connections in this test");
        }

        @Override
        public void listen(BoundListener listener, ListenEvents events) {
            throw new UnsupportedOperationException("no listeners in this test");
        }

        @Override
        public void close() {
        }
    }
}
