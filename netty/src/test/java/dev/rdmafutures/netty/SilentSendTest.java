package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A byte stream's SENDs are silent but for one per half its send depth: they hold their initiator slots until a
 * signalled request settles them, and a close that finds them outstanding settles them itself, so it neither waits
 * for ever nor cuts bytes the application wrote.
 */
class SilentSendTest {
    private static final int MESSAGES = 3; // fewer than half the default send depth: every SEND is silent
    private static EventLoopGroup group;

    @BeforeAll
    static void start() {
        group = new RdmaEventLoopGroup(2);
    }

    @AfterAll
    static void stop() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @Test
    void silentSendsHoldTheirSlotsAndACloseSettlesThemWithEveryByteDelivered() throws Exception {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        CompletableFuture<Void> inactive = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        byte[] chunk = new byte[buf.readableBytes()];
                        buf.getBytes(buf.readerIndex(), chunk);
                        synchronized (received) {
                            received.writeBytes(chunk);
                        }
                        ctx.writeAndFlush(msg); // echoed, so that the client hears from its peer and does not probe it
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        inactive.complete(null);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        LinkedBlockingQueue<Integer> echoed = new LinkedBlockingQueue<>();
        Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        echoed.add(((ByteBuf) msg).readableBytes());
                        ((ByteBuf) msg).release();
                    }
                })
                .connect(server.localAddress()).sync().channel();
        try {
            byte[] expected = new byte[MESSAGES * 100];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = (byte) i;
            }
            int bytes = 0;
            for (int m = 0; m < MESSAGES; m++) {
                client.writeAndFlush(Unpooled.wrappedBuffer(expected, m * 100, 100)).sync();
                while (bytes < (m + 1) * 100) {
                    Integer n = echoed.poll(10, TimeUnit.SECONDS);
                    assertThat(n).as("bytes of message %d echoed", m).isNotNull();
                    bytes += n;
                }
            }
            // Each message went and came back, yet a signalled request has settled none of its SENDs. (A liveness
            // probe, a signalled READ, would settle those before it; the echoes keep the client from sending one
            // after the last message, so at least that one is held.)
            assertThat(((RdmaSocketChannel) client).connection().metrics().initiatorSlotsUsed()).isPositive();

            byte[] last = new byte[] {42};
            client.writeAndFlush(Unpooled.wrappedBuffer(last));
            assertThat(client.close().await(10, TimeUnit.SECONDS)).isTrue();
            inactive.get(10, TimeUnit.SECONDS);
            synchronized (received) {
                byte[] all = received.toByteArray();
                assertThat(all).hasSize(expected.length + 1);
                assertThat(all).startsWith(expected).endsWith(last);
            }
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }
}
