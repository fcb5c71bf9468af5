package dev.rdmafutures.internal.poller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.Ticker;
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
    private final Poller poller = new Poller("duty-cycle-test", IdleStrategy.BUSY_SPIN, Ticker.system(),
            new DutyCycleErrors(), (address, nanoTime) -> { }, context -> loop.attach(context),
            Thread.currentThread());

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
    void nothingGatheredIsNothingDispatchedAndTheCycleStillFlushesOnce() {
        loop.ready = 0;
        poller.invoke();
        assertThat(steps).containsExactly("gather", "flush");
    }

    /** An event loop that records each call the poller makes and reports what the test sets as ready. */
    private final class RecordingLoop implements EventLoop {
        PollerContext context;
        int ready;
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
