package dev.rdmafutures.netty;

import dev.rdmafutures.ConnectBuilder;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.ReadLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.UncheckedBooleanSupplier;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty stream channel over one RDMA connection: the bytes written leave as SENDs into receives the peer keeps
 * posted, with credits for flow control ({@link ByteStream}); the peer's SENDs arrive as {@link ByteBuf}s of the
 * channel's allocator. Create client channels through {@code Bootstrap.channel(RdmaSocketChannel.class)} on an
 * {@link RdmaEventLoopGroup}; {@link RdmaServerSocketChannel} creates the accepted ones.
 *
 * <p>What a Netty channel promises holds: the connect timeout ({@code CONNECT_TIMEOUT_MILLIS}) fails the connect
 * with {@link io.netty.channel.ConnectTimeoutException}, a refused one with {@link java.net.ConnectException}; auto-read,
 * writability by the water marks (bytes the peer has no credit for stay in the outbound buffer), half-closure
 * ({@link #shutdownOutput()} sends a FIN after the bytes before it; with {@code ALLOW_HALF_CLOSURE} the peer sees
 * {@link ChannelInputShutdownEvent}, without it the peer's channel closes); a failure of the connection fires
 * {@code exceptionCaught} and closes the channel; the peer's disconnect closes it. A {@link FileRegion} is copied into
 * the send buffers (no {@code sendfile}: see {@link SendBuffers}); one that cannot be transferred fails its write with
 * the {@link IOException} of its {@code transferTo}.
 */
public final class RdmaSocketChannel extends AbstractChannel implements SocketChannel, ByteStream.Events {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaSocketChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private final RdmaSocketChannelConfig config = new RdmaSocketChannelConfig(this);
    private final Handle handle = new Handle();
    /** The loop of the server channel that accepted this one, whose runtime owns the connection; null for clients. */
    private final ThreadAwareExecutor homeLoop;
    /** Volatile: {@code alloc()} reads it on any thread. */
    private volatile RdmaIoHandler ioHandler;
    private IoRegistration registration;
    private RdmaConnection connection;
    private ByteStream stream;
    private ChannelPromise connectPromise;
    private CompletableFuture<RdmaConnection> connecting;
    private volatile boolean open = true;
    private volatile boolean active;
    private volatile boolean inputShutdown;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private volatile byte[] peerPrivateData = new byte[0];
    private boolean readPending;
    private boolean deliveryScheduled;
    private boolean delivering;
    private final Runnable deliverTask = this::deliver;
    private final UncheckedBooleanSupplier moreReady = () -> stream != null && stream.hasReady();
    private boolean outputShutdownRequested;
    private boolean peerGone;
    private boolean closedByPeerBeforeRegistration;
    /** Calls the stream's liveness probe while the channel is open ({@link ByteStream#probe()}). */
    private ScheduledFuture<?> prober;
    private final Runnable probeTask = () -> {
        if (open && stream != null) {
            stream.probe();
        }
    };

    /** A client channel; {@code Bootstrap} creates it. */
    public RdmaSocketChannel() {
        super(null);
        this.homeLoop = null;
    }

    /** An accepted channel, on the event loop (and runtime) that accepted its connection. */
    RdmaSocketChannel(RdmaServerSocketChannel parent, RdmaIoHandler home, RdmaConnection connection,
                      StreamSettings settings, StreamHello peer, ReceiveRing receives) {
        super(parent);
        this.homeLoop = home.executor();
        this.ioHandler = home;
        this.connection = connection;
        this.peerPrivateData = peer.applicationData();
        this.local = connection.localAddress();
        this.remote = connection.remoteAddress();
        this.stream = ByteStream.open(home.runtime(), connection, settings, peer, receives, home.probeSink(),
                home.allocator(), home.executor(), this);
        this.active = true;
        connection.disconnected().whenComplete((reason, error) -> onDisconnected());
    }

    /** The private data the peer sent with its connect or accept, the stream's hello taken off; empty if none. */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * The RDMA connection under the stream, for one-sided READs and WRITEs beside it (null before the connect
     * completes); its initiator queue has as many slots again as the stream's sends for them. Its SENDs and RECEIVEs
     * belong to the stream: post none of your own.
     */
    public RdmaConnection connection() {
        return connection;
    }

    ThreadAwareExecutor homeLoop() {
        return homeLoop;
    }

    /** Bytes its stream sent from registered buffers without a copy; on the channel's event loop. */
    long bytesSentInPlace() {
        return stream == null ? 0 : stream.bytesSentInPlace();
    }

    /**
     * The runtime of the loop this channel is registered with (null before its registration); for tests, which read
     * its metrics on the loop's thread.
     */
    RdmaRuntime loopRuntime() {
        RdmaIoHandler handler = ioHandler;
        return handler == null ? null : handler.runtime();
    }

    /** The allocator of the loop this channel is registered with; null before its registration. */
    RegisteredBufferAllocator loopAllocator() {
        RdmaIoHandler handler = ioHandler;
        return handler == null ? null : handler.allocator();
    }

    @Override
    public RdmaSocketChannelConfig config() {
        return config;
    }

    @Override
    public RdmaServerSocketChannel parent() {
        return (RdmaServerSocketChannel) super.parent();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && active;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop ioLoop && ioLoop.isCompatible(Handle.class)
                && (homeLoop == null || loop == homeLoop);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        handle.register(eventLoop(), promise, r -> {
            registration = r;
            ioHandler = r.attachment();
        });
        if (closedByPeerBeforeRegistration) { // the connection ended between its accept and this registration
            eventLoop().execute(() -> unsafe().close(unsafe().voidPromise()));
        } else if (stream != null) {
            startProbing(); // an accepted channel: its stream is up
        }
    }

    @Override
    protected void doDeregister() {
        if (registration != null) {
            registration.cancel();
        }
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        // The runtime binds the local address with the connect (ConnectBuilder.from); remember it for then.
        local = (InetSocketAddress) localAddress;
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    @Override
    protected void doClose() {
        boolean wasOpen = open;
        open = false;
        active = false;
        ChannelPromise promise = connectPromise;
        if (promise != null) {
            connectPromise = null;
            promise.tryFailure(new ClosedChannelException());
        }
        ScheduledFuture<?> probes = prober;
        if (probes != null) {
            prober = null;
            probes.cancel(false);
        }
        if (stream != null) {
            stream.close();
        } else if (connecting != null && wasOpen) {
            connecting.thenAccept(RdmaConnection::close); // a connect still in flight ends when it completes
        }
    }

    @Override
    protected void doBeginRead() {
        if (!isActive()) {
            return;
        }
        readPending = true;
        // Bytes that already wait are delivered by a task, not from inside this read() call: a handler that calls
        // read() in channelRead would otherwise recurse once per message.
        if (stream.hasReady()) {
            scheduleDelivery();
        }
    }

    void clearReadPending() {
        readPending = false;
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        if (msg instanceof ByteBuf || msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("an RDMA channel writes ByteBufs and FileRegions, not "
                + msg.getClass().getName());
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (stream == null) {
            throw new NotYetConnectedException();
        }
        stream.write(in);
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe();
    }

    // --- half-closure (DuplexChannel) ---

    @Override
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdownRequested || !isActive();
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown() || !isActive();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        onLoop(() -> {
            if (stream == null) {
                promise.setFailure(open ? new NotYetConnectedException() : new ClosedChannelException());
                return;
            }
            shutdownInputNow();
            promise.setSuccess();
        });
        return promise;
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        onLoop(() -> ((AbstractUnsafe) unsafe()).shutdownOutput(promise));
        return promise;
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        onLoop(() -> {
            shutdownInputNow();
            ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
        });
        return promise;
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (stream == null) {
            throw new NotYetConnectedException();
        }
        // Netty fails what the outbound buffer still holds; the FIN follows the messages already sent.
        outputShutdownRequested = true;
        stream.shutdownOutput(); // without a credit now, it goes when writable() is next called
    }

    private void shutdownInputNow() {
        if (!inputShutdown) {
            inputShutdown = true;
            if (stream != null) {
                stream.discardReady();
                try {
                    stream.returnCredits(); // a peer that waits for credits would otherwise wait for ever
                } catch (IOException e) {
                    failed(e);
                }
            }
        }
    }

    /**
     * Probes the peer's liveness from now until the channel closes: a peer that owes this side nothing (a gRPC call
     * awaiting its answer) still has its silence bounded by the runtime's liveness deadline.
     */
    private void startProbing() {
        if (prober == null && open) {
            prober = eventLoop().scheduleAtFixedRate(probeTask, ByteStream.PROBE_INTERVAL_MILLIS,
                    ByteStream.PROBE_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void onLoop(Runnable task) {
        if (eventLoop().inEventLoop()) {
            task.run();
        } else {
            eventLoop().execute(task);
        }
    }

    // --- what the stream reports, on the event loop ---

    @Override
    public void readable() {
        if (isRegistered()) {
            deliver();
        }
    }

    @Override
    public void writable() {
        try {
            if (outputShutdownRequested) {
                stream.shutdownOutput(); // no-op once the FIN is out
            } else {
                ((RdmaUnsafe) unsafe()).resumeWrite();
            }
            stream.returnCredits();
        } catch (IOException e) {
            failed(e);
        }
    }

    @Override
    public void failed(Throwable cause) {
        if (!isRegistered()) {
            closedByPeerBeforeRegistration = true;
            doClose();
            return;
        }
        if (isOpen()) {
            pipeline().fireExceptionCaught(cause);
            unsafe().close(unsafe().voidPromise());
        }
    }

    private void onDisconnected() {
        if (!open) {
            return;
        }
        if (!isRegistered()) {
            closedByPeerBeforeRegistration = true;
            doClose();
            return;
        }
        peerGone = true;
        deliver(); // closes the channel once what arrived before the peer left has been read
    }

    /**
     * Hands what arrived to the pipeline while a read is pending, in buffers the channel's
     * {@link RecvByteBufAllocator} sizes and as many as it continues for (as NIO's read loop does), then returns
     * credits and acts on the peer's FIN.
     */
    private void deliver() {
        deliveryScheduled = false;
        if (stream == null || !open) {
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
            deliverNow();
        } finally {
            delivering = false;
        }
    }

    private void scheduleDelivery() {
        if (!deliveryScheduled) {
            deliveryScheduled = true;
            eventLoop().execute(deliverTask);
        }
    }

    private void deliverNow() {
        if (inputShutdown) {
            stream.discardReady();
        }
        if (readPending && stream.hasReady()) {
            RecvByteBufAllocator.Handle allocHandle = unsafe().recvBufAllocHandle();
            allocHandle.reset(config);
            // Bytes read are copied out of the receive buffers: registered memory would gain them nothing.
            ByteBufAllocator allocator = config.getAllocator();
            ByteBufAllocator readAllocator = allocator instanceof RegisteredBufferAllocator registered
                    ? registered.fallback() : allocator;
            do {
                ByteBuf buf = allocHandle.allocate(readAllocator);
                allocHandle.attemptedBytesRead(buf.writableBytes());
                allocHandle.lastBytesRead(stream.readInto(buf));
                allocHandle.incMessagesRead(1);
                readPending = false; // a handler's read(), or auto-read after readComplete, asks for the next
                pipeline().fireChannelRead(buf);
            } while (open && !inputShutdown && stream.hasReady() && continueReading(allocHandle));
            allocHandle.readComplete();
            pipeline().fireChannelReadComplete();
        }
        if (stream == null || !open) {
            return;
        }
        if (peerGone) {
            // The peer disconnected: like a socket at EOF, the channel closes once what arrived before was read.
            if (!stream.hasReady() || inputShutdown) {
                endInput();
                unsafe().close(unsafe().voidPromise());
            }
            return;
        }
        try {
            stream.returnCredits();
        } catch (IOException e) {
            failed(e);
            return;
        }
        if (stream.isInputEnded() && !inputShutdown) {
            if (config.isAllowHalfClosure()) {
                endInput();
            } else {
                unsafe().close(unsafe().voidPromise());
            }
        }
    }

    /** The peer's output ended: with half-closure allowed, the pipeline hears it once, as from a socket's EOF. */
    private void endInput() {
        if (!inputShutdown && config.isAllowHalfClosure()) {
            inputShutdown = true;
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        }
        inputShutdown = true;
    }

    private boolean continueReading(RecvByteBufAllocator.Handle allocHandle) {
        // Bytes that wait in the stream are "maybe more data" even when the last buffer was not filled.
        return allocHandle instanceof RecvByteBufAllocator.ExtendedHandle extended
                ? extended.continueReading(moreReady) : allocHandle.continueReading();
    }

    private final class Handle extends RdmaIoHandle {
        @Override
        public void close() {
            unsafe().close(unsafe().voidPromise());
        }
    }

    private final class RdmaUnsafe extends AbstractUnsafe {
        void resumeWrite() {
            flush0();
        }

        @Override
        protected void flush0() {
            // While the connect is in flight, flushed writes wait for it (like a socket's pending OP_WRITE) rather
            // than fail: onConnect flushes them once the stream is up.
            if (connectPromise == null) {
                super.flush0();
            }
        }

        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            if (connectPromise != null) {
                promise.setFailure(new ConnectionPendingException());
                return;
            }
            if (active) {
                promise.setFailure(new AlreadyConnectedException());
                return;
            }
            ReceiveRing receives = null;
            try {
                RdmaRuntime runtime = ioHandler.runtime();
                StreamSettings settings = config.rdma().stream().cappedTo(runtime.adapterInfo());
                if (ReceiveRing.postsBeforeConnection(runtime.adapterInfo(), config.rdma(), settings)) {
                    receives = ReceiveRing.beforeConnection(runtime, settings);
                }
                ConnectBuilder builder = runtime.connector().connect((InetSocketAddress) remoteAddress)
                        .withQueueDepths(settings.initiatorDepth(runtime.adapterInfo()), settings.receiveDepth())
                        .withPrivateData(StreamHello.encode(settings, ioHandler.probeTarget(),
                                config.rdma().privateData()));
                ReadLimits limits = config.rdma().readLimits();
                if (limits != null) {
                    builder.withReadLimits(limits.inbound(), limits.outbound());
                }
                if (receives != null) {
                    builder.withSharedReceiveQueue(receives.queue());
                }
                if (config.getConnectTimeoutMillis() > 0) {
                    builder.withTimeout(Duration.ofMillis(config.getConnectTimeoutMillis()));
                }
                SocketAddress from = localAddress != null ? localAddress : local;
                if (from != null) {
                    builder.from((InetSocketAddress) from);
                }
                connectPromise = promise;
                remote = (InetSocketAddress) remoteAddress;
                connecting = builder.start();
                ReceiveRing preposted = receives;
                connecting.whenComplete((c, error) -> onConnect(c, error, settings, preposted));
            } catch (RuntimeException e) {
                if (receives != null) {
                    receives.release();
                }
                connectPromise = null;
                promise.tryFailure(ConnectErrors.toNetty(e, remoteAddress));
                closeIfClosed();
            }
        }

        /** {@code preposted}: the receives posted before connecting, or null to post them on the connection now. */
        private void onConnect(RdmaConnection c, Throwable error, StreamSettings settings, ReceiveRing preposted) {
            ChannelPromise promise = connectPromise;
            connectPromise = null;
            if (error != null) {
                if (preposted != null) {
                    preposted.release();
                }
                if (promise != null) {
                    promise.tryFailure(ConnectErrors.toNetty(error, remote));
                }
                close(voidPromise());
                return;
            }
            if (!open || promise == null) {
                ReceiveRing.closeUnused(c, preposted);
                return;
            }
            StreamHello peer = StreamHello.decode(c.connectionData().peerPrivateData());
            if (peer == null) {
                ReceiveRing.closeUnused(c, preposted);
                promise.tryFailure(new IOException("the server at " + remote + " is not an RdmaFutures Netty server"
                        + " (its accept carried no stream hello)"));
                close(voidPromise());
                return;
            }
            ReceiveRing receives = preposted;
            try {
                if (receives == null) {
                    receives = ReceiveRing.afterConnection(ioHandler.runtime(), settings);
                }
                stream = ByteStream.open(ioHandler.runtime(), c, settings, peer, receives, ioHandler.probeSink(),
                        ioHandler.allocator(), ioHandler.executor(), RdmaSocketChannel.this);
            } catch (RuntimeException | OutOfMemoryError e) {
                ReceiveRing.closeUnused(c, receives);
                promise.tryFailure(ConnectErrors.toNetty(e, remote));
                close(voidPromise());
                return;
            }
            connection = c;
            peerPrivateData = peer.applicationData();
            local = c.localAddress();
            remote = c.remoteAddress();
            active = true;
            c.disconnected().whenComplete((reason, e) -> onDisconnected());
            startProbing();
            promise.trySuccess();
            LOG.debug("RDMA channel {} connected", RdmaSocketChannel.this);
            pipeline().fireChannelActive();
            flush0(); // what was written while connecting
        }
    }
}
