package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.PollerMetrics;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A loop's turn when its channels wait for their peers: it waits, then polls what the wait found, and polls nothing
 * before the wait only to find nothing (on soft such a poll reads every busy socket in vain).
 */
class LoopTurnTest {
    private static final int ROUND_TRIPS = 2_000;
    private final EventLoopGroup serverLoop = new RdmaEventLoopGroup(1);
    private final EventLoopGroup clientLoop = new RdmaEventLoopGroup(1);

    @AfterEach
    void stop() throws Exception {
        clientLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        serverLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @Test
    void aPingPongBetweenTwoLoopsRunsNoDutyCycleThatFindsNothing() throws Exception {
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
        CompletableFuture<Void> done = new CompletableFuture<>();
        Channel client = new Bootstrap().group(clientLoop).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
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
                })
                .connect(server.localAddress()).sync().channel();
        RdmaSocketChannel accepted = (RdmaSocketChannel) child.get(10, TimeUnit.SECONDS);
        RdmaSocketChannel connected = (RdmaSocketChannel) client;
        PollerMetrics serverBefore = cycles(accepted);
        PollerMetrics clientBefore = cycles(connected);

        client.writeAndFlush(client.alloc().buffer(8).writeLong(0)).sync();
        done.get(30, TimeUnit.SECONDS);

        // Every turn of a loop here waits, then polls: what woke it was bytes (work) or this thread's task (one
        // idle cycle per snapshot), or a timer (a few a second). A poll before each wait would idle once per round
        // trip.
        assertThat(idleCycles(serverBefore, cycles(accepted))).isLessThan(ROUND_TRIPS / 10);
        assertThat(idleCycles(clientBefore, cycles(connected))).isLessThan(ROUND_TRIPS / 10);
        client.close().sync();
        server.close().sync();
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
