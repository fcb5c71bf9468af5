package dev.rdmafutures.netty;

import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
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
 *
 * <p>This class is the channel's contract and its write side; the read side is {@link InboundReader}, a client's
 * connect {@link ClientConnect}, the wire protocol {@link ByteStream}. It stays past 400 lines: what Netty's
 * {@code AbstractChannel}, {@code SocketChannel} and {@code DuplexChannel} ask of a channel must be on the class.
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
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private volatile byte[] peerPrivateData = new byte[0];
    private final InboundReader reader = new InboundReader(this);
    private boolean outputShutdownRequested;
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

    /** The byte stream over the connection; null until the connect completes. On the channel's event loop. */
    ByteStream stream() {
        return stream;
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
        if (isActive()) {
            reader.beginRead();
        }
    }

    /**
     * Auto-read was turned off, on any thread: a registered channel drops its pending read on its loop, as NIO does;
     * one on no loop (before its registration, after its deregistration) drops it here, where no loop reads it.
     */
    void clearReadPending() {
        if (isRegistered() && !eventLoop().inEventLoop()) {
            eventLoop().execute(reader::clearReadPending);
        } else {
            reader.clearReadPending();
        }
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
        return reader.isInputShutdown();
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
            reader.shutdownInput();
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
            reader.shutdownInput();
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
            reader.deliver();
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
        reader.peerGone();
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
            ClientConnect attempt;
            try {
                SocketAddress from = localAddress != null ? localAddress : local;
                attempt = ClientConnect.start(ioHandler, config.rdma(), config.getConnectTimeoutMillis(),
                        (InetSocketAddress) remoteAddress, (InetSocketAddress) from);
            } catch (RuntimeException | OutOfMemoryError e) {
                promise.tryFailure(ConnectErrors.toNetty(e, remoteAddress));
                closeIfClosed();
                return;
            }
            connectPromise = promise;
            remote = (InetSocketAddress) remoteAddress;
            connecting = attempt.connection();
            connecting.whenComplete((c, error) -> onConnect(attempt, c, error));
        }

        private void onConnect(ClientConnect attempt, RdmaConnection c, Throwable error) {
            ChannelPromise promise = connectPromise;
            connectPromise = null;
            if (error != null) {
                attempt.failed();
                if (promise != null) {
                    promise.tryFailure(ConnectErrors.toNetty(error, remote));
                }
                close(voidPromise());
                return;
            }
            if (!open || promise == null) {
                attempt.abandon(c);
                return;
            }
            ClientConnect.Opened opened;
            try {
                opened = attempt.open(c, RdmaSocketChannel.this);
            } catch (IOException | RuntimeException | OutOfMemoryError e) {
                promise.tryFailure(ConnectErrors.toNetty(e, remote));
                close(voidPromise());
                return;
            }
            stream = opened.stream();
            connection = c;
            peerPrivateData = opened.peer().applicationData();
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
