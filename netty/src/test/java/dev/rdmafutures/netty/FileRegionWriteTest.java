package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * File regions that fail: what the channel does besides what Netty's {@code SocketFileRegionTest} checks. As on
 * Netty's socket channels, the write fails with the region's {@link IOException} and the channel closes
 * ({@code AUTO_CLOSE}); what was written before the region still reaches the peer.
 */
class FileRegionWriteTest {
    private static EventLoopGroup group;
    private Channel server;
    private Channel client;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    @BeforeAll
    static void start() {
        group = new RdmaEventLoopGroup(1);
    }

    @AfterAll
    static void stop() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @BeforeEach
    void connect() throws Exception {
        server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        byte[] bytes = new byte[buf.readableBytes()];
                        buf.readBytes(bytes);
                        synchronized (received) {
                            received.write(bytes, 0, bytes.length);
                            received.notifyAll();
                        }
                        buf.release();
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
    }

    @AfterEach
    void close() throws Exception {
        client.close().sync();
        server.close().sync();
    }

    @Test
    void aRegionThatFailsBehindBytesInTheSameMessageFailsWithItsOwnErrorAndTheBytesArrive() throws Exception {
        IOException gone = new IOException("the disk went away");
        ChannelFuture before = client.write(ascii("hello "));
        Region failing = new Region(10) {
            @Override
            public long transferTo(WritableByteChannel target, long position) throws IOException {
                throw gone;
            }
        };
        ChannelFuture region = client.writeAndFlush(failing);

        assertThat(region.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(region.cause()).isSameAs(gone);
        assertThat(before.isSuccess()).isTrue();
        assertThat(failing.refCnt()).as("Netty releases a write it failed").isZero();
        assertThat(receivedWithin("hello ".length())).isEqualTo("hello ");
        assertThat(client.closeFuture().await(10, TimeUnit.SECONDS)).as("closed on the IOException").isTrue();
    }

    @Test
    void aRegionThatGivesNoByteFailsItsWriteInsteadOfWaitingForEver() throws Exception {
        Region stuck = new Region(10) {
            @Override
            public long transferTo(WritableByteChannel target, long position) {
                return 0;
            }
        };
        ChannelFuture region = client.writeAndFlush(stuck);

        assertThat(region.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(region.cause()).isInstanceOf(IOException.class)
                .hasMessageContaining("transferred no byte with 10 of its 10 left");
        assertThat(stuck.refCnt()).isZero();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private String receivedWithin(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (received) {
            while (received.size() < n && System.nanoTime() < deadline) {
                received.wait(100);
            }
            return received.toString(StandardCharsets.US_ASCII);
        }
    }

    /** A region of {@code count} bytes whose {@code transferTo} the test decides. */
    private abstract static class Region extends AbstractReferenceCounted implements FileRegion {
        private final long count;

        Region(long count) {
            this.count = count;
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        @Deprecated
        public long transfered() {
            return 0;
        }

        @Override
        public long transferred() {
            return 0;
        }

        @Override
        public long count() {
            return count;
        }

        @Override
        public FileRegion retain() {
            super.retain();
            return this;
        }

        @Override
        public FileRegion retain(int increment) {
            super.retain(increment);
            return this;
        }

        @Override
        public FileRegion touch() {
            return this;
        }

        @Override
        public FileRegion touch(Object hint) {
            return this;
        }

        @Override
        protected void deallocate() {
        }
    }
}
