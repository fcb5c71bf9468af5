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
        Channel server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
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
        int total = Integer.getInteger("echo.total", 4 * 1024 * 1024);
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();
        Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
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
        client.close().sync();
        server.close().sync();
    }
}
