package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One server channel's connections on every loop of its group: the loops share one runtime, whose {@code soft}
 * provider deals accepted connections to its pollers round robin, and each accepted channel lives on the loop of its
 * poller, where its handlers run.
 */
class SpreadAcceptTest {
    private static final int LOOPS = 3;
    private static final int CLIENTS = 6;
    private EventLoopGroup group;
    private Channel server;
    private final List<Channel> clients = new ArrayList<>();
    /** Each accepted channel's loop, and whether its handler ran on that loop's thread. */
    private final Set<EventLoop> childLoops = ConcurrentHashMap.newKeySet();
    private final Set<Boolean> handlersOnTheirLoop = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() throws Exception {
        group = new RdmaEventLoopGroup(LOOPS);
        server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new Echo())
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    @AfterEach
    void stop() throws Exception {
        for (Channel c : clients) {
            c.close().sync();
        }
        server.close().sync();
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    /** Echoes, and notes where it ran; one instance serves every accepted channel. */
    @ChannelHandler.Sharable
    private final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            childLoops.add(ctx.channel().eventLoop());
            handlersOnTheirLoop.add(ctx.channel().eventLoop().inEventLoop());
            ctx.writeAndFlush(msg);
        }
    }

    @Test
    void aServerChannelsConnectionsLiveOnEveryLoopAndEachEchoes() throws Exception {
        List<CompletableFuture<String>> echoes = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            CompletableFuture<String> echoed = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf buf = (ByteBuf) msg;
                            echoed.complete(buf.toString(StandardCharsets.US_ASCII));
                            buf.release();
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            clients.add(client);
            client.writeAndFlush(Unpooled.copiedBuffer("client " + i, StandardCharsets.US_ASCII));
            echoes.add(echoed);
        }

        for (int i = 0; i < CLIENTS; i++) {
            assertThat(echoes.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("client " + i);
        }
        Set<EventLoop> all = new HashSet<>();
        group.forEach(loop -> all.add((EventLoop) loop));
        assertThat(childLoops).as("the accepted channels' loops").isEqualTo(all);
        assertThat(handlersOnTheirLoop).containsExactly(true);
    }
}
