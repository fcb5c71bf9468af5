package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The loop's waits: a task from another thread always ends one, however the loop's own selections fell. */
class RdmaIoHandlerTest {
    private EventLoopGroup group;

    @AfterEach
    void stop() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    @ParameterizedTest
    @EnumSource(value = IdleStrategy.class, names = {"BACKOFF", "BLOCKING"})
    void everyTaskFromAnotherThreadWakesALoopWhoseNextDeadlineIsAnHourAway(IdleStrategy strategy) throws Exception {
        group = new RdmaEventLoopGroup(1, runtime -> runtime.idleStrategy(strategy));
        EventLoop loop = group.next();
        loop.schedule(() -> { }, 1, TimeUnit.HOURS); // the loop's waits last until a wake-up
        for (int i = 0; i < 2_000; i++) {
            // The loop busy with its own tasks (each turn polls, and a poll's selection consumes a pending wake-up)
            // while another task arrives from here; then it waits, and the next task from here must wake it.
            CompletableFuture<Void> busy = new CompletableFuture<>();
            loop.execute(new Runnable() {
                private int turns;

                @Override
                public void run() {
                    if (++turns < 20) {
                        loop.execute(this);
                    } else {
                        busy.complete(null);
                    }
                }
            });
            assertThat(loop.submit(() -> true).get(10, TimeUnit.SECONDS)).isTrue();
            busy.get(10, TimeUnit.SECONDS);
        }
    }
}
