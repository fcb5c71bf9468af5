package dev.rdmafutures.jmh;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.netty.RdmaEventLoopGroup;
import dev.rdmafutures.netty.RdmaServerSocketChannel;
import dev.rdmafutures.netty.RdmaSocketChannel;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The Netty transports the Netty benchmarks compare: RdmaFutures' on {@code soft} ({@code rdma}) and on {@code verbs}
 * ({@code verbs}: the device {@code -Dbench.device} names, inside the RDMA VM), each with the group's default idle
 * strategy and with loops that block at once ({@code rdma_blocking}, {@code verbs_blocking}), Netty's NIO and Netty's
 * epoll; each its server and client channel classes and an event loop group of one thread.
 */
enum NettyTransport {
    RDMA("rdma-soft", RdmaServerSocketChannel.class, RdmaSocketChannel.class, () -> new RdmaEventLoopGroup(1)),
    /** {@code rdma} whose loops block as soon as they are idle ({@link IdleStrategy#BLOCKING}), as Netty's do. */
    RDMA_BLOCKING("rdma-soft-blocking", RdmaServerSocketChannel.class, RdmaSocketChannel.class,
            () -> new RdmaEventLoopGroup(1, runtime -> runtime.idleStrategy(IdleStrategy.BLOCKING))),
    VERBS("rdma-verbs", RdmaServerSocketChannel.class, RdmaSocketChannel.class,
            () -> new RdmaEventLoopGroup(1, runtime -> verbs(runtime))),
    /** {@code verbs} whose loops block as soon as they are idle. */
    VERBS_BLOCKING("rdma-verbs-blocking", RdmaServerSocketChannel.class, RdmaSocketChannel.class,
            () -> new RdmaEventLoopGroup(1, runtime -> verbs(runtime).idleStrategy(IdleStrategy.BLOCKING))),
    NIO("nio", NioServerSocketChannel.class, NioSocketChannel.class,
            () -> new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory())),
    EPOLL("epoll", EpollServerSocketChannel.class, EpollSocketChannel.class,
            () -> new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory()));

    final String label;
    final Class<? extends ServerChannel> serverChannel;
    final Class<? extends Channel> clientChannel;
    final Supplier<EventLoopGroup> group;

    NettyTransport(String label, Class<? extends ServerChannel> serverChannel, Class<? extends Channel> clientChannel,
            Supplier<EventLoopGroup> group) {
        this.label = label;
        this.serverChannel = serverChannel;
        this.clientChannel = clientChannel;
        this.group = group;
    }

    private static RdmaRuntime.Builder verbs(RdmaRuntime.Builder runtime) {
        return runtime.provider("verbs").providerOption("verbs.device", System.getProperty("bench.device"));
    }

    /**
     * The transports a comma-separated list names ({@code rdma,nio,epoll}); epoll where Netty's native epoll is not
     * available is left out, with the reason added to {@code skipped}.
     */
    static List<NettyTransport> parse(String names, List<String> skipped) {
        List<NettyTransport> transports = new ArrayList<>();
        for (String name : names.split(",")) {
            NettyTransport transport = valueOf(name.trim().toUpperCase(Locale.ROOT));
            if (transport == EPOLL && !Epoll.isAvailable()) {
                skipped.add("epoll: " + Epoll.unavailabilityCause());
                continue;
            }
            transports.add(transport);
        }
        return transports;
    }
}
