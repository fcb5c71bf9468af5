package dev.rdmafutures.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannelConfig;
import java.util.Map;

/**
 * The configuration of an {@link RdmaSocketChannel}: Netty's generic options (allocator, receive buffer allocator,
 * auto-read, auto-close, connect timeout, water marks, {@code ALLOW_HALF_CLOSURE}) and {@link RdmaChannelOption}'s.
 *
 * <p>It is a {@link SocketChannelConfig} so that code written for TCP ({@code ChannelInitializer<SocketChannel>},
 * {@code config().setTcpNoDelay(true)}) runs unchanged. The TCP settings have no RDMA counterpart, and their typed
 * setters change nothing: an RDMA stream never delays a message (TCP_NODELAY reads true), the runtime's liveness
 * timeout watches an idle peer (SO_KEEPALIVE reads true), the stream's credits are its buffers (SO_SNDBUF and
 * SO_RCVBUF read the stream's own sizes), and SO_LINGER, IP_TOS and SO_REUSEADDR read as unset. Set through
 * {@code setOption} or a bootstrap, TCP_NODELAY and SO_KEEPALIVE are accepted when set true (the stream does that
 * already) and refused when set false; the others are refused ({@code false}), and Netty logs them as unknown.
 */
public final class RdmaSocketChannelConfig extends DefaultChannelConfig implements SocketChannelConfig {
    private final RdmaOptions rdma = new RdmaOptions();
    private volatile boolean allowHalfClosure;
    private volatile boolean allocatorSet;

    RdmaSocketChannelConfig(RdmaSocketChannel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        Map<ChannelOption<?>, Object> options = getOptions(super.getOptions(), RdmaOptions.ALL);
        options.put(ChannelOption.ALLOW_HALF_CLOSURE, allowHalfClosure);
        return options;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        if (alwaysOn(option)) {
            return (T) Boolean.TRUE;
        }
        Object value = rdma.get(option);
        return value != null || option == RdmaChannelOption.READ_LIMITS ? (T) value : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
            return true;
        }
        if (alwaysOn(option)) {
            return (Boolean) value;
        }
        return rdma.set(option, value) || super.setOption(option, value);
    }

    /**
     * TCP_NODELAY and SO_KEEPALIVE ask for what an RDMA stream always does; gRPC and many Netty clients set them on
     * every connection, so asking for them is accepted (no WARN per connection) and asking to turn them off refused.
     */
    private static boolean alwaysOn(ChannelOption<?> option) {
        return option == ChannelOption.TCP_NODELAY || option == ChannelOption.SO_KEEPALIVE;
    }

    RdmaOptions rdma() {
        return rdma;
    }

    @Override
    protected void autoReadCleared() {
        ((RdmaSocketChannel) channel).clearReadPending();
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public RdmaSocketChannelConfig setAllowHalfClosure(boolean allowHalfClosure) {
        this.allowHalfClosure = allowHalfClosure;
        return this;
    }

    // TCP settings without an RDMA counterpart: read as documented above, set without effect.

    @Override
    public boolean isTcpNoDelay() {
        return true;
    }

    @Override
    public RdmaSocketChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
        return this;
    }

    @Override
    public int getSoLinger() {
        return -1;
    }

    @Override
    public RdmaSocketChannelConfig setSoLinger(int soLinger) {
        return this;
    }

    @Override
    public int getSendBufferSize() {
        StreamSettings stream = rdma.stream();
        return stream.sendDepth() * stream.bufferSize();
    }

    @Override
    public RdmaSocketChannelConfig setSendBufferSize(int sendBufferSize) {
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        StreamSettings stream = rdma.stream();
        return stream.receiveDepth() * stream.bufferSize();
    }

    @Override
    public RdmaSocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        return this;
    }

    @Override
    public boolean isKeepAlive() {
        return true;
    }

    @Override
    public RdmaSocketChannelConfig setKeepAlive(boolean keepAlive) {
        return this;
    }

    @Override
    public int getTrafficClass() {
        return 0;
    }

    @Override
    public RdmaSocketChannelConfig setTrafficClass(int trafficClass) {
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return false;
    }

    @Override
    public RdmaSocketChannelConfig setReuseAddress(boolean reuseAddress) {
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    // Netty's generic settings, typed for SocketChannelConfig.

    @Override
    public RdmaSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RdmaSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    /**
     * {@inheritDoc} Here, unless one was set: the channel's event loop's allocator, whose direct buffers of 64 KiB to
     * 1 MiB lie in memory the loop's runtime registered, so that the stream sends large writes from them without a
     * copy; before the channel is registered, Netty's default.
     */
    @Override
    public ByteBufAllocator getAllocator() {
        if (!allocatorSet) {
            ByteBufAllocator loop = ((RdmaSocketChannel) channel).loopAllocator();
            if (loop != null) {
                return loop;
            }
        }
        return super.getAllocator();
    }

    @Override
    public RdmaSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        allocatorSet = true;
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public RdmaSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }
}
