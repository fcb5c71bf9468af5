package dev.rdmafutures.netty;

import dev.rdmafutures.RdmaRuntime;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.function.Consumer;

/**
 * Event loops that each own an RDMA runtime ({@link RdmaIoHandler}). Give it to a {@code Bootstrap}, and to a
 * {@code ServerBootstrap} as both parent and child group: an accepted connection belongs to the runtime of the loop
 * whose server channel accepted it, so this group registers each accepted channel on that loop (any other loop would
 * need a thread hand-off per message, which this transport does not make). A child group other than the server's
 * refuses the channel with a message that says so.
 *
 * <pre>{@code
 * EventLoopGroup group = new RdmaEventLoopGroup(1);
 * new ServerBootstrap().group(group, group).channel(RdmaServerSocketChannel.class)...
 * new Bootstrap().group(group).channel(RdmaSocketChannel.class)...
 * }</pre>
 */
public final class RdmaEventLoopGroup extends MultiThreadIoEventLoopGroup {
    /** {@code threads} event loops on runtimes with {@link RdmaRuntime#builder()}'s defaults (provider soft). */
    public RdmaEventLoopGroup(int threads) {
        this(threads, builder -> { });
    }

    /**
     * {@code threads} event loops whose runtimes {@code configuration} sets up, once per loop on the loop's thread
     * (see {@link RdmaIoHandler#newFactory(Consumer)}).
     */
    public RdmaEventLoopGroup(int threads, Consumer<RdmaRuntime.Builder> configuration) {
        super(threads, RdmaIoHandler.newFactory(configuration));
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
