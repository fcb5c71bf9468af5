package dev.rdmafutures.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.util.UncheckedBooleanSupplier;
import java.io.IOException;

/**
 * The read side of an {@link RdmaSocketChannel}: hands what its {@link ByteStream} received to the pipeline as Netty's
 * read protocol asks (only while a read is pending, in buffers the channel's {@link RecvByteBufAllocator} sizes, as
 * many as it continues for, then {@code channelReadComplete}), returns the credits that frees, and turns the peer's
 * FIN, the peer's departure and a local {@code shutdownInput} into what a socket's reader would see.
 *
 * <p>Confined to the channel's event loop, except {@link #isInputShutdown()}, and {@link #clearReadPending()} while the
 * channel is on no loop.
 */
final class InboundReader {
    private final RdmaSocketChannel channel;
    private final Runnable deliverTask = this::deliver;
    private final UncheckedBooleanSupplier moreReady;
    private boolean readPending;
    private boolean deliveryScheduled;
    private boolean delivering;
    /** The peer disconnected: the channel closes once what arrived before has been read. */
    private boolean peerGone;
    /** Volatile: {@code isInputShutdown()} reads it on any thread. */
    private volatile boolean inputShutdown;

    InboundReader(RdmaSocketChannel channel) {
        this.channel = channel;
        this.moreReady = () -> channel.stream() != null && channel.stream().hasReady();
    }

    /**
     * A read was asked for ({@code doBeginRead} of an active channel). Bytes that already wait are delivered by a
     * task, not from inside this call: a handler that calls {@code read()} in {@code channelRead} would otherwise
     * recurse once per message.
     */
    void beginRead() {
        readPending = true;
        if (channel.stream().hasReady()) {
            scheduleDelivery();
        }
    }

    /** Auto-read was turned off: no read is pending any more. On the channel's loop, or while it is on none. */
    void clearReadPending() {
        readPending = false;
    }

    boolean isInputShutdown() {
        return inputShutdown;
    }

    /** The peer disconnected: like a socket at EOF, the channel closes once what arrived before it left was read. */
    void peerGone() {
        peerGone = true;
        deliver();
    }

    /**
     * Shuts the input down: what waits is dropped and its receives posted again, and the credits that frees are
     * returned at once, since a peer that waits for them would otherwise wait for ever.
     */
    void shutdownInput() {
        if (inputShutdown) {
            return;
        }
        inputShutdown = true;
        ByteStream stream = channel.stream();
        if (stream != null) {
            stream.discardReady();
            try {
                stream.returnCredits();
            } catch (IOException e) {
                channel.failed(e);
            }
        }
    }

    /** Delivers what arrived while a read is pending, then returns credits and acts on the peer's FIN. */
    void deliver() {
        deliveryScheduled = false;
        if (channel.stream() == null || !channel.isOpen()) {
            return;
        }
        if (delivering) {
            // A handler waiting on a runtime future inside channelRead polls the runtime, whose completions land
            // here: deliver after the outer read loop instead of inside it.
            scheduleDelivery();
            return;
        }
        delivering = true;
        try {
            deliverNow(channel.stream());
        } finally {
            delivering = false;
        }
    }

    private void scheduleDelivery() {
        if (!deliveryScheduled) {
            deliveryScheduled = true;
            channel.eventLoop().execute(deliverTask);
        }
    }

    private void deliverNow(ByteStream stream) {
        if (inputShutdown) {
            stream.discardReady();
        }
        if (readPending && stream.hasReady()) {
            readAll(stream);
        }
        if (!channel.isOpen()) {
            return;
        }
        if (peerGone) {
            if (!stream.hasReady() || inputShutdown) {
                endInput();
                closeChannel();
            }
            return;
        }
        try {
            stream.returnCredits();
        } catch (IOException e) {
            channel.failed(e);
            return;
        }
        if (stream.isInputEnded() && !inputShutdown) {
            if (channel.config().isAllowHalfClosure()) {
                endInput();
            } else {
                closeChannel();
            }
        }
    }

    /** One read: as many buffers as the channel's {@link RecvByteBufAllocator} continues for (as NIO's loop does). */
    private void readAll(ByteStream stream) {
        RecvByteBufAllocator.Handle allocHandle = channel.unsafe().recvBufAllocHandle();
        allocHandle.reset(channel.config());
        // Bytes read are copied out of the receive buffers: registered memory would gain them nothing.
        ByteBufAllocator allocator = channel.config().getAllocator();
        ByteBufAllocator readAllocator = allocator instanceof RegisteredBufferAllocator registered
                ? registered.fallback() : allocator;
        ChannelPipeline pipeline = channel.pipeline();
        do {
            ByteBuf buf = allocHandle.allocate(readAllocator);
            allocHandle.attemptedBytesRead(buf.writableBytes());
            allocHandle.lastBytesRead(stream.readInto(buf));
            allocHandle.incMessagesRead(1);
            readPending = false; // a handler's read(), or auto-read after readComplete, asks for the next
            pipeline.fireChannelRead(buf);
        } while (channel.isOpen() && !inputShutdown && stream.hasReady() && continueReading(allocHandle));
        allocHandle.readComplete();
        pipeline.fireChannelReadComplete();
    }

    /** The peer's output ended: with half-closure allowed, the pipeline hears it once, as from a socket's EOF. */
    private void endInput() {
        if (!inputShutdown && channel.config().isAllowHalfClosure()) {
            inputShutdown = true;
            channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            channel.pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        }
        inputShutdown = true;
    }

    private void closeChannel() {
        channel.unsafe().close(channel.unsafe().voidPromise());
    }

    private boolean continueReading(RecvByteBufAllocator.Handle allocHandle) {
        // Bytes that wait in the stream are "maybe more data" even when the last buffer was not filled.
        return allocHandle instanceof RecvByteBufAllocator.ExtendedHandle extended
                ? extended.continueReading(moreReady) : allocHandle.continueReading();
    }
}
