package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.PollerMetrics;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A loop's turn when its channels wait for their peers. {@code BLOCKING}, it waits, then polls what the wait found,
 * and polls nothing before the wait only to find nothing (on soft such a poll reads every busy socket in vain). With a
 * spinning idle strategy ({@code BACKOFF}, the group's default) it polls between looks at its task queue while its
 * peer answers, and with {@code BACKOFF} it still blocks once idle ({@code BUSY_SPIN}, which never blocks, is the
 * control that the measure of an idle loop tells the two apart).
 */
class LoopTurnTest {
    private static final int ROUND_TRIPS = 2_000;
    private EventLoopGroup serverLoop;
    private EventLoopGroup clientLoop;
    private RdmaSocketChannel accepted;
    private RdmaSocketChannel connected;

    @AfterEach
    void stop() throws Exception {
        try {
            if (clientLoop != null) {
                clientLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        } finally {
            if (serverLoop != null) {
                serverLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        }
    }

    @Test
    void aPingPongBetweenTwoLoopsRunsNoDutyCycleThatFindsNothing() throws Exception {
        connect(IdleStrategy.BLOCKING);
        PollerMetrics serverBefore = cycles(accepted);
        PollerMetrics clientBefore = cycles(connected);

        pingPong();

        // Every turn of a loop here waits, then polls: what woke it was bytes (work) or this thread's task (one
        // idle cycle per snapshot), or a timer (a few a second). A poll before each wait would idle once per round
        // trip.
        assertThat(idleCycles(serverBefore, cycles(accepted))).isLessThan(ROUND_TRIPS / 10);
        assertThat(idleCycles(clientBefore, cycles(connected))).isLessThan(ROUND_TRIPS / 10);
    }

    @ParameterizedTest
    @EnumSource(value = IdleStrategy.class, names = {"BACKOFF", "BUSY_SPIN"})
    void aLoopThatSpinsPollsWhileItsPeerAnswersAndBacksOffToBlockingOnceIdle(IdleStrategy strategy)
            throws Exception {
        connect(strategy);
        PollerMetrics serverBefore = cycles(accepted);
        pingPong();
        // While the client's reply is on its way, the server's loop polls and finds nothing, turn after turn; a loop
        // that blocked instead would idle less than once per round trip (the test above).
        assertThat(idleCycles(serverBefore, cycles(accepted))).isGreaterThan(ROUND_TRIPS);

        // Idle now. A blocked loop turns about once in a 20 ms window (to run the task that ends it); a spinning one
        // thousands of times. BUSY_SPIN is the control that the measure tells them apart: it takes only a few windows,
        // so that a spinning thread kept off the CPU for a whole window is unlikely.
        int windows = strategy == IdleStrategy.BACKOFF ? 50 : 5;
        boolean blocked = false;
        for (int window = 0; window < windows && !blocked; window++) {
            blocked = cyclesInWindow(accepted) <= 2;
        }
        assertThat(blocked).as("the idle %s loop ended up blocked", strategy)
                .isEqualTo(strategy == IdleStrategy.BACKOFF);
    }

    private void connect(IdleStrategy strategy) throws Exception {
        serverLoop = new RdmaEventLoopGroup(1, runtime -> runtime.idleStrategy(strategy));
        clientLoop = new RdmaEventLoopGroup(1, runtime -> runtime.idleStrategy(strategy));
        CompletableFuture<Channel> child = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(serverLoop).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        child.complete(ctx.channel());
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        connected = (RdmaSocketChannel) new Bootstrap().group(clientLoop).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        accepted = (RdmaSocketChannel) child.get(10, TimeUnit.SECONDS);
    }

    /** {@link #ROUND_TRIPS} round trips of 8 bytes, one at a time. */
    private void pingPong() throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        connected.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            private int roundTrips;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
                if (++roundTrips < ROUND_TRIPS) {
                    ctx.writeAndFlush(ctx.alloc().buffer(8).writeLong(roundTrips));
                } else {
                    done.complete(null);
                }
            }
        });
        connected.writeAndFlush(connected.alloc().buffer(8).writeLong(0)).sync();
        done.get(30, TimeUnit.SECONDS);
    }

    /**
     * The loop's duty cycles in 20 ms of real time, delimited on the loop by Netty's own timer: a task reads the count
     * and schedules, from the loop (which wakes nothing), the task that reads it again.
     */
    private static long cyclesInWindow(RdmaSocketChannel channel) throws Exception {
        CompletableFuture<Long> window = new CompletableFuture<>();
        EventLoop loop = channel.eventLoop();
        loop.execute(() -> {
            long before = channel.loopRuntime().metrics().pollers().get(0).dutyCycles();
            loop.schedule(() -> window.complete(channel.loopRuntime().metrics().pollers().get(0).dutyCycles() - before),
                    20, TimeUnit.MILLISECONDS);
        });
        return window.get(10, TimeUnit.SECONDS);
    }

    /** The loop's duty cycles, read on the loop. */
    private static PollerMetrics cycles(RdmaSocketChannel channel) throws Exception {
        return channel.eventLoop().submit(() -> channel.loopRuntime().metrics().pollers().get(0))
                .get(10, TimeUnit.SECONDS);
    }

    private static long idleCycles(PollerMetrics before, PollerMetrics after) {
        return (after.dutyCycles() - after.workCycles()) - (before.dutyCycles() - before.workCycles());
    }
}
