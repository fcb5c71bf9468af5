package dev.rdmafutures.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ServerSocketChannelConfig;
import java.util.Map;

/**
 * The configuration of an {@link RdmaServerSocketChannel}: Netty's generic options and {@link RdmaChannelOption}'s,
 * which apply to the connections it accepts. It is a {@link ServerSocketChannelConfig} so that code written for TCP
 * runs unchanged; the listen backlog is the runtime's ({@code RdmaRuntime.Builder.listenBacklog}), and the TCP
 * settings read as unset and are set without effect (refused through {@code setOption}, which Netty logs).
 */
public final class RdmaServerSocketChannelConfig extends DefaultChannelConfig implements ServerSocketChannelConfig {
    private final RdmaOptions rdma = new RdmaOptions();

    RdmaServerSocketChannelConfig(RdmaServerSocketChannel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), RdmaOptions.ALL);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        Object value = rdma.get(option);
        return value != null || option == RdmaChannelOption.READ_LIMITS ? (T) value : super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        return rdma.set(option, value) || super.setOption(option, value);
    }

    RdmaOptions rdma() {
        return rdma;
    }

    @Override
    public int getBacklog() {
        return 0;
    }

    @Override
    public RdmaServerSocketChannelConfig setBacklog(int backlog) {
        return this;
    }

    @Override
    public boolean isReuseAddress() {
        return false;
    }

    @Override
    public RdmaServerSocketChannelConfig setReuseAddress(boolean reuseAddress) {
        return this;
    }

    @Override
    public int getReceiveBufferSize() {
        StreamSettings stream = rdma.stream();
        return stream.receiveDepth() * stream.bufferSize();
    }

    @Override
    public RdmaServerSocketChannelConfig setReceiveBufferSize(int receiveBufferSize) {
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    @Deprecated
    public RdmaServerSocketChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setRecvByteBufAllocator(RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setMessageSizeEstimator(MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    @Deprecated
    public RdmaServerSocketChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    @Deprecated
    public RdmaServerSocketChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RdmaServerSocketChannelConfig setWriteBufferWaterMark(WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }
}
