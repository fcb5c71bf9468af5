package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.internal.PlatformDependent;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes from the channel's allocator leave without a copy, and the memory they were sent from is not reused until the
 * SEND is over: the write's promise completes, and Netty releases the buffer, when the stream took it, before the
 * provider has read its bytes.
 */
class ZeroCopyWriteTest {
    /**
     * The smallest buffer the loop's allocator carves from registered memory: fewer bytes than the stream's credits
     * and send buffers let leave at once, so the first write is taken whole and released in the task that writes it.
     */
    private static final int SIZE = RegisteredBufferAllocator.MIN_CAPACITY;
    private static EventLoopGroup group;

    @BeforeAll
    static void start() {
        group = new RdmaEventLoopGroup(1);
    }

    @AfterAll
    static void stop() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @Test
    void aReleasedWriteKeepsItsBytesUntilSentWhileItsMemoryIsAskedForAgain() throws Exception {
        assumeTrue(PlatformDependent.hasUnsafe(), "Netty runs without Unsafe here (its default on Java 25 and later): "
                + "the loop's allocator then hands out no registered buffers, and every write is copied");
        CompletableFuture<ByteBuf> received = new CompletableFuture<>();
        ByteBuf collected = Unpooled.buffer(2 * SIZE);
        Channel server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf in = (ByteBuf) msg;
                        collected.writeBytes(in);
                        in.release();
                        if (collected.readableBytes() == 2 * SIZE) {
                            received.complete(collected);
                        }
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        RegisteredBufferAllocator allocator = ((RdmaSocketChannel) client).loopAllocator();
        // One task on the loop: the first write is taken and released before the provider reads it, and the second
        // buffer is asked for right then: were the first one's block free again, the second would overwrite it.
        client.eventLoop().submit(() -> {
            ByteBuf first = filled(client.alloc(), (byte) 0x11);
            client.writeAndFlush(first);
            assertThat(first.refCnt()).as("the stream holds what it sends from").isPositive();
            client.writeAndFlush(filled(client.alloc(), (byte) 0x22));
        }).sync();
        ByteBuf bytes = received.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < 2 * SIZE; i++) {
            if (bytes.getByte(i) != (i < SIZE ? (byte) 0x11 : (byte) 0x22)) {
                throw new AssertionError("byte " + i + " is " + bytes.getByte(i));
            }
        }
        long inPlace = client.eventLoop().submit(() -> ((RdmaSocketChannel) client).bytesSentInPlace()).get();
        assertThat(inPlace).as("sent without a copy").isGreaterThan(SIZE);
        client.close().sync();
        server.close().sync();
        assertThat(allocator.bytesInUse()).as("every block back once the SENDs ended").isZero();
    }

    @Test
    void anAllocatorTheApplicationSetIsUsedAndItsWritesAreCopied() throws Exception {
        Channel server = new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        Channel client = new Bootstrap().group(group).channel(RdmaSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress()).sync().channel();
        assertThat(client.alloc()).isSameAs(ByteBufAllocator.DEFAULT);
        client.writeAndFlush(filled(client.alloc(), (byte) 1)).sync();
        long inPlace = client.eventLoop().submit(() -> ((RdmaSocketChannel) client).bytesSentInPlace()).get();
        assertThat(inPlace).isZero();
        client.close().sync();
        server.close().sync();
    }

    private static ByteBuf filled(ByteBufAllocator alloc, byte value) {
        ByteBuf buf = alloc.directBuffer(SIZE);
        for (int i = 0; i < SIZE; i++) {
            buf.writeByte(value);
        }
        return buf;
    }
}
