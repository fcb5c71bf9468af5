package dev.rdmafutures.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;
import java.util.function.Consumer;

/**
 * What an RDMA channel registers with its event loop's {@link RdmaIoHandler}. The runtime's completion callbacks
 * drive the channel directly, so no {@link IoEvent} is ever delivered through it; the registration's attachment is
 * the handler, whose runtime the channel uses.
 */
abstract class RdmaIoHandle implements IoHandle {
    @Override
    public final void handle(IoRegistration registration, IoEvent ioEvent) {
        throw new UnsupportedOperationException("RDMA channels take no IoEvents");
    }

    /**
     * Registers this handle with {@code loop}'s {@link RdmaIoHandler}; {@code registered} gets the registration (its
     * attachment is the handler) before {@code promise} succeeds.
     */
    final void register(EventLoop loop, ChannelPromise promise, Consumer<IoRegistration> registered) {
        ((IoEventLoop) loop).register(this).addListener(f -> {
            if (f.isSuccess()) {
                registered.accept((IoRegistration) f.getNow());
                promise.setSuccess();
            } else {
                promise.setFailure(f.cause());
            }
        });
    }

    /** Closes the channel now; the event loop is shutting down. */
    @Override
    public abstract void close();
}
