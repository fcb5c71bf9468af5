package dev.rdmafutures.jmh;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bytes the event loop threads allocate per message on a Netty echo in steady state, over RdmaFutures' transport on
 * {@code soft} beside Netty's NIO and epoll transports (issue 26: the channel allocates nothing per message beyond
 * what Netty itself allocates). A client keeps {@value #WINDOW} messages of {@value #SIZE} B in flight, each written
 * from a pooled buffer of the channel's allocator when an echo of one came back, flushed once per read batch; the
 * server writes every buffer it reads straight back and flushes once per read batch. The handlers allocate nothing
 * of their own, so what the two loop threads allocate ({@code ThreadMXBean.getThreadAllocatedBytes}, exact) is the
 * transport's and Netty's. Counted over MESSAGES echoes after as many unrecorded, with Netty's leak detector off:
 * it records a stack trace for a sample of the buffers allocated, which is a debugging aid's cost, not a transport's.
 *
 * <p>Usage: {@code NettyAllocationCheck TRANSPORTS MESSAGES OUT.json} (TRANSPORTS as {@link NettyTransport#parse}).
 */
public final class NettyAllocationCheck {
    static final int SIZE = 64;
    static final int WINDOW = 16;
    private static final long DEADLINE_SECONDS = 120;

    private NettyAllocationCheck() {
    }

    /** The client's side: counts echoed bytes, answers each complete echo with a new message. */
    private static final class Client extends ChannelInboundHandlerAdapter {
        private final long messages;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private volatile long echoed;
        private long bytes;
        private long sent;
        private long mark = -1;
        private CompletableFuture<Void> marked;

        Client(long messages) {
            this.messages = messages;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            for (int i = 0; i < WINDOW; i++) {
                send(ctx);
            }
            ctx.flush();
        }

        private void send(ChannelHandlerContext ctx) {
            ByteBuf message = ctx.alloc().buffer(SIZE);
            message.writeZero(SIZE);
            ctx.write(message, ctx.voidPromise());
            sent++;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            bytes += in.readableBytes();
            in.release();
            while (bytes >= SIZE) {
                bytes -= SIZE;
                echoed++;
                if (echoed == mark) {
                    marked.complete(null);
                }
                if (sent < messages) {
                    send(ctx);
                }
            }
            if (echoed == messages) {
                done.complete(null);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            if (marked != null) {
                marked.completeExceptionally(cause);
            }
            ctx.close();
        }
    }

    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    record Result(String transport, long messages, double clientBytesPerMessage, double serverBytesPerMessage) {
    }

    static Result measure(NettyTransport transport, long messages) throws Exception {
        EventLoopGroup serverGroup = transport.group.get();
        EventLoopGroup clientGroup = transport.group.get();
        try {
            Channel server = new ServerBootstrap().group(serverGroup, serverGroup).channel(transport.serverChannel)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new Echo());
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            long serverThread = serverGroup.submit(() -> Thread.currentThread().getId()).get();
            long clientThread = clientGroup.submit(() -> Thread.currentThread().getId()).get();
            Client client = new Client(2 * messages);
            client.mark = messages; // the first half warms up, unrecorded
            client.marked = new CompletableFuture<>();
            long[] before = new long[2];
            client.marked.thenRun(() -> {
                // On the client's loop thread, at the mark: read both threads' counters as the measurement begins.
                long[] now = allocated(clientThread, serverThread);
                before[0] = now[0];
                before[1] = now[1];
            });
            Channel channel = new Bootstrap().group(clientGroup).channel(transport.clientChannel)
                    .handler(client).connect(server.localAddress()).sync().channel();
            client.done.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            long[] after = allocated(clientThread, serverThread);
            channel.close().sync();
            server.close().sync();
            return new Result(transport.label, messages, (double) (after[0] - before[0]) / messages,
                    (double) (after[1] - before[1]) / messages);
        } finally {
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    private static long[] allocated(long... threads) {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(threads);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: NettyAllocationCheck TRANSPORTS MESSAGES OUT.json");
            System.exit(2);
        }
        System.setProperty("io.netty.leakDetection.level", "disabled"); // before Netty reads it
        List<String> skipped = new ArrayList<>();
        List<NettyTransport> transports = NettyTransport.parse(args[0], skipped);
        long messages = Long.parseLong(args[1]);
        StringBuilder json = new StringBuilder("{\"size\": " + SIZE + ", \"window\": " + WINDOW + ", \"results\": [");
        for (int i = 0; i < transports.size(); i++) {
            Result r = measure(transports.get(i), messages);
            System.out.printf(Locale.ROOT, "%-9s %d echoes of %d B, %d in flight: client loop %.2f B/msg, server "
                    + "loop %.2f B/msg%n", r.transport, r.messages, SIZE, WINDOW, r.clientBytesPerMessage,
                    r.serverBytesPerMessage);
            json.append(i == 0 ? "\n" : ",\n").append(String.format(Locale.ROOT, "  {\"transport\": \"%s\", "
                    + "\"messages\": %d, \"clientBytesPerMessage\": %.3f, \"serverBytesPerMessage\": %.3f}",
                    r.transport, r.messages, r.clientBytesPerMessage, r.serverBytesPerMessage));
        }
        json.append("\n], \"skipped\": [");
        for (int i = 0; i < skipped.size(); i++) {
            json.append(i == 0 ? "" : ", ").append('"').append(skipped.get(i).replace("\"", "'")).append('"');
        }
        json.append("]}\n");
        Files.writeString(Path.of(args[2]), json);
    }
}
