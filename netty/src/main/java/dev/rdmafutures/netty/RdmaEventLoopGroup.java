package dev.rdmafutures.netty;

import dev.rdmafutures.RdmaRuntime;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.NettyRuntime;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.SystemPropertyUtil;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Event loops that share one RDMA runtime, each driving a poller of it ({@link RdmaIoHandler}). Give it to a
 * {@code Bootstrap}, and to a {@code ServerBootstrap} as both parent and child group: an accepted connection lives on
 * the poller, and so the loop, its runtime dealt it to (the group's loops in turn), and this group registers each
 * accepted channel on that loop (any other loop would need a thread hand-off per message, which this transport does
 * not make). A child group other than the server's refuses
 * the channel with a message that says so. A client channel's connection lives on the loop the channel is registered
 * on. Every loop starts with the group, since the runtime may hand any of them a connection.
 *
 * <pre>{@code
 * EventLoopGroup group = new RdmaEventLoopGroup(1);
 * new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)...
 * new Bootstrap().group(group).channel(RdmaSocketChannel.class)...
 * }</pre>
 */
public final class RdmaEventLoopGroup extends MultiThreadIoEventLoopGroup {
    private static final Runnable NOTHING = () -> { };

    /** {@code threads} event loops on a runtime with {@link RdmaRuntime#builder()}'s defaults (provider soft). */
    public RdmaEventLoopGroup(int threads) {
        this(threads, builder -> { });
    }

    /**
     * {@code threads} event loops whose runtime {@code configuration} sets up, once, on the thread of the loop that
     * starts first. {@code pollerThreads} and {@code invokedPollers} are the group's to set (0, and one per loop); set
     * no {@code completionExecutor} (see {@link RdmaIoHandler#newFactory(Consumer)}). Its {@code idleStrategy}
     * decides how an idle loop waits: by default ({@code BACKOFF}) it polls the provider between looks at its task
     * queue for a few hundred turns, then blocks until I/O or a task (a reply that comes meanwhile costs no wake-up);
     * {@code BLOCKING} blocks at once, as Netty's own loops do (least CPU); {@code BUSY_SPIN} and {@code YIELD} never
     * block.
     *
     * @throws IllegalArgumentException when {@code threads} is not 0..64, 64 being the most pollers a runtime has (0:
     *     Netty's default number of loops, at most 64)
     */
    public RdmaEventLoopGroup(int threads, Consumer<RdmaRuntime.Builder> configuration) {
        super(loops(threads), new GroupRuntime(loops(threads), Objects.requireNonNull(configuration,
                "configuration")).factory());
        for (EventExecutor loop : this) {
            loop.execute(NOTHING); // starts its thread, which claims its poller
        }
    }

    /** {@code threads}, or for 0 Netty's default number of event loops, at most 64. */
    private static int loops(int threads) {
        if (threads == 0) {
            return Math.min(64, Math.max(1, SystemPropertyUtil.getInt("io.netty.eventLoopThreads",
                    NettyRuntime.availableProcessors() * 2)));
        }
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("an RDMA event loop group has 1..64 loops: " + threads);
        }
        return threads;
    }

    @Override
    public ChannelFuture register(Channel channel) {
        EventLoop home = homeOf(channel);
        return home != null ? home.register(channel) : super.register(channel);
    }

    @Override
    public ChannelFuture register(ChannelPromise promise) {
        EventLoop home = homeOf(promise.channel());
        return home != null ? home.register(promise) : super.register(promise);
    }

    private EventLoop homeOf(Channel channel) {
        if (channel instanceof RdmaSocketChannel rdma && rdma.homeLoop() != null) {
            for (EventExecutor loop : this) {
                if (loop == rdma.homeLoop()) {
                    return (EventLoop) loop;
                }
            }
        }
        return null;
    }
}
