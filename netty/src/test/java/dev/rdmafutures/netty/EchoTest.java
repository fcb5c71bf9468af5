package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EchoTest {
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
    void echoesMoreBytesThanTheCreditsCover() throws Exception {
        echo(4 * 1024 * 1024, new ServerBootstrap(), new Bootstrap(), (client, child) ->
                assertThat(((RdmaSocketChannel) client).connection().metrics().receiveSlotsUsed())
                        .isEqualTo(StreamSettings.DEFAULT_RECEIVE_DEPTH));
    }

    @Test
    void theSmallestStreamCarriesEveryByte() throws Exception {
        // Depth 4 and 64-byte buffers: credits are returned after every other message, both ways at once.
        ServerBootstrap sb = new ServerBootstrap().option(RdmaChannelOption.STREAM_RECEIVE_DEPTH, 4)
                .option(RdmaChannelOption.STREAM_SEND_DEPTH, 4).option(RdmaChannelOption.STREAM_BUFFER_SIZE, 64);
        Bootstrap cb = new Bootstrap().option(RdmaChannelOption.STREAM_RECEIVE_DEPTH, 4)
                .option(RdmaChannelOption.STREAM_SEND_DEPTH, 4).option(RdmaChannelOption.STREAM_BUFFER_SIZE, 64);
        echo(200_000, sb, cb, (client, child) -> { });
    }

    @Test
    void aStreamWhoseReceivesArePostedBeforeConnectingCarriesEveryByte() throws Exception {
        // iWARP's path (a queue of the stream's own, filled before the connect and the accept), forced on soft.
        ServerBootstrap sb = new ServerBootstrap().option(RdmaOptions.PREPOSTED_RECEIVES, true)
                .option(RdmaChannelOption.STREAM_RECEIVE_DEPTH, 4).option(RdmaChannelOption.STREAM_BUFFER_SIZE, 64);
        Bootstrap cb = new Bootstrap().option(RdmaOptions.PREPOSTED_RECEIVES, true)
                .option(RdmaChannelOption.STREAM_RECEIVE_DEPTH, 4).option(RdmaChannelOption.STREAM_BUFFER_SIZE, 64);
        echo(200_000, sb, cb, (client, child) -> {
            // A connection with a shared receive queue keeps no receives of its own.
            assertThat(((RdmaSocketChannel) client).connection().metrics().receiveSlotsUsed()).isZero();
            assertThat(((RdmaSocketChannel) child).connection().metrics().receiveSlotsUsed()).isZero();
        });
    }

    @Test
    void shuttingInputDownReturnsTheCreditsAPeerWaitsFor() throws Exception {
        CompletableFuture<Channel> child = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childOption(io.netty.channel.ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        child.complete(ctx.channel());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        // The server reads nothing, so 4 MiB cannot pass the credits of its receives (64 x 16 KiB by default)...
        io.netty.channel.ChannelFuture written = client.writeAndFlush(Unpooled.wrappedBuffer(new byte[4 << 20]));
        assertThat(written.await(500, TimeUnit.MILLISECONDS)).isFalse();
        // ...until it shuts its input down: what waits is dropped and the credits go back.
        ((RdmaSocketChannel) child.get(10, TimeUnit.SECONDS)).shutdownInput().sync();
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(written.isSuccess()).isTrue();
        client.close().sync();
        server.close().sync();
    }

    /** Echoes {@code total} bytes, and runs {@code check} on both ends before they close. */
    private static void echo(int total, ServerBootstrap sb, Bootstrap cb, BiConsumer<Channel, Channel> check)
            throws Exception {
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        Channel server = sb.group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        accepted.complete(ctx.channel());
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.write(msg);
                    }

                    @Override
                    public void channelReadComplete(ChannelHandlerContext ctx) {
                        ctx.flush();
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();
        Channel client = cb.group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            private final byte[] received = new byte[total];
                            private int count;

                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf buf = (ByteBuf) msg;
                                int n = buf.readableBytes();
                                buf.readBytes(received, count, n);
                                buf.release();
                                count += n;
                                if (count == total) {
                                    echoed.complete(received);
                                }
                            }
                        });
                    }
                })
                .connect(server.localAddress()).sync().channel();
        byte[] sent = new byte[total];
        for (int i = 0; i < total; i++) {
            sent[i] = (byte) (i * 31 + (i >>> 13));
        }
        for (int off = 0; off < total; off += 1000) {
            client.write(Unpooled.wrappedBuffer(sent, off, Math.min(1000, total - off)));
        }
        client.flush();
        assertThat(echoed.get(30, TimeUnit.SECONDS)).isEqualTo(sent);
        check.accept(client, accepted.get(10, TimeUnit.SECONDS));
        client.close().sync();
        server.close().sync();
    }
}
