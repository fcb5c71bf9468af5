package dev.rdmafutures.netty;

import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.socket.ServerSocketChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty server channel over an RDMA listener: {@code ServerBootstrap.channel(RdmaServerSocketChannel.class)} on an
 * {@link RdmaEventLoopGroup}, given as both parent and child group. It accepts each request whose private data
 * starts with the stream's hello, answering with its own (and {@link RdmaChannelOption#PRIVATE_DATA} after it), and
 * rejects any other; each accepted connection becomes an {@link RdmaSocketChannel} read by the pipeline. A request
 * is answered on the loop whose poller the runtime gave the connection, which may be another loop of the group than
 * this channel's; the accepted channel is handed to this channel's loop to be read, and lives on its own. The stream
 * options set on this channel apply to the connections it accepts.
 */
public final class RdmaServerSocketChannel extends AbstractServerChannel implements ServerSocketChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServerSocketChannel.class);
    /**
     * The most accepts at once whose stream's receives were posted before the accept ({@link ReceiveRing}): each holds
     * a queue and registered memory from the request on, and peers that never complete their handshakes must not
     * pin more than this many until the handshake timeout frees them. Requests beyond it are rejected.
     */
    static final int MAX_PREPOSTED_ACCEPTS = 64;

    private final RdmaServerSocketChannelConfig config = new RdmaServerSocketChannelConfig(this);
    private final RdmaIoHandle handle = new RdmaIoHandle() {
        @Override
        public void close() {
            unsafe().close(unsafe().voidPromise());
        }
    };
    private final ArrayDeque<RdmaSocketChannel> accepted = new ArrayDeque<>();
    private RdmaIoHandler ioHandler;
    private IoRegistration registration;
    /** Volatile: requests read it on whichever loop they land. */
    private volatile RdmaListener listener;
    private volatile boolean open = true;
    private volatile InetSocketAddress local;
    private boolean readPending;
    /** Accepts under way whose receives were posted before them, on any of the group's loops. */
    private final AtomicInteger prepostedAccepts = new AtomicInteger();

    /** A server channel; {@code ServerBootstrap} creates it. */
    public RdmaServerSocketChannel() {
    }

    @Override
    public RdmaServerSocketChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && listener != null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop ioLoop && ioLoop.isCompatible(handle.getClass());
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        handle.register(eventLoop(), promise, r -> {
            registration = r;
            ioHandler = r.attachment();
        });
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
    protected void doBind(SocketAddress localAddress) {
        listener = ioHandler.runtime().listen((InetSocketAddress) localAddress);
        local = listener.localAddress();
        listener.onRequest(this::onRequest);
    }

    @Override
    protected void doClose() {
        open = false;
        if (listener != null) {
            listener.close();
        }
        RdmaSocketChannel child;
        while ((child = accepted.poll()) != null) {
            closeOnItsLoop(child);
        }
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        deliverAccepted();
    }

    /**
     * On the loop whose poller has the request's connection (the runtime's listener calls back there): this
     * channel's, or another of the group's.
     */
    private void onRequest(ConnectionRequest request) {
        StreamHello peer = StreamHello.decode(request.privateData());
        if (!isActive() || peer == null) {
            if (peer == null) {
                LOG.debug("rejecting {}: its connect carried no stream hello", request.remoteAddress());
            }
            request.reject(null);
            return;
        }
        RdmaIoHandler home = ioHandler.onCurrentThread();
        RdmaRuntime runtime = home.runtime();
        StreamSettings settings = config.rdma().stream().cappedTo(runtime.adapterInfo());
        ReceiveRing preposted = null;
        try {
            if (ReceiveRing.postsBeforeConnection(runtime.adapterInfo(), config.rdma(), settings)) {
                int underWay;
                do {
                    underWay = prepostedAccepts.get();
                    if (underWay >= MAX_PREPOSTED_ACCEPTS) {
                        LOG.debug("rejecting {}: {} accepts with receives posted are under way already",
                                request.remoteAddress(), underWay);
                        request.reject(null);
                        return;
                    }
                } while (!prepostedAccepts.compareAndSet(underWay, underWay + 1));
                try {
                    preposted = ReceiveRing.beforeConnection(runtime, settings);
                } finally {
                    if (preposted == null) {
                        prepostedAccepts.decrementAndGet();
                    }
                }
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            // debug: peers that connect again and again could otherwise fill the log
            LOG.debug("rejecting {}: its stream's receives could not be set up ({})", request.remoteAddress(),
                    e.toString());
            request.reject(null);
            return;
        }
        ReceiveRing receives = preposted;
        if (receives != null) {
            request.withSharedReceiveQueue(receives.queue());
        }
        request.withQueueDepths(settings.initiatorDepth(runtime.adapterInfo()), settings.receiveDepth())
                .withPrivateData(StreamHello.encode(settings, home.probeTarget(), config.rdma().privateData()))
                .accept()
                .whenComplete((connection, error) -> onAccepted(home, connection, error, settings, peer, receives));
    }

    /**
     * On {@code home}, the loop of the request: {@code preposted} holds the receives posted before accepting, or null
     * to post them on the connection now.
     */
    private void onAccepted(RdmaIoHandler home, RdmaConnection connection, Throwable error, StreamSettings settings,
                            StreamHello peer, ReceiveRing preposted) {
        if (preposted != null) {
            prepostedAccepts.decrementAndGet();
        }
        if (error != null) {
            LOG.debug("an accept on {} failed", local, error); // the client's connect reports it too
            if (preposted != null) {
                preposted.release();
            }
            return;
        }
        ReceiveRing receives = preposted;
        RdmaSocketChannel child = null;
        try {
            if (open) {
                if (receives == null) {
                    receives = ReceiveRing.afterConnection(home.runtime(), settings);
                }
                child = new RdmaSocketChannel(this, home, connection, settings, peer, receives);
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            LOG.warn("closing the connection from {}: its stream could not be set up ({})",
                    connection.remoteAddress(), e.toString());
        }
        if (child == null) {
            ReceiveRing.closeUnused(connection, receives);
            return;
        }
        RdmaSocketChannel made = child;
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            enqueueAccepted(made);
            return;
        }
        try {
            loop.execute(() -> enqueueAccepted(made));
        } catch (RejectedExecutionException shuttingDown) {
            made.unsafe().closeForcibly(); // on made's loop, this one
        }
    }

    /** On this channel's loop: {@code child} waits to be read, unless this channel closed meanwhile. */
    private void enqueueAccepted(RdmaSocketChannel child) {
        if (!open) {
            closeOnItsLoop(child);
            return;
        }
        accepted.add(child);
        deliverAccepted();
    }

    /** Closes an accepted channel nobody read, on the loop its connection lives on, whose thread its stream is. */
    private static void closeOnItsLoop(RdmaSocketChannel child) {
        if (child.homeLoop().isExecutorThread(Thread.currentThread())) {
            child.unsafe().closeForcibly();
            return;
        }
        try {
            child.homeLoop().execute(() -> child.unsafe().closeForcibly());
        } catch (RejectedExecutionException shuttingDown) {
            // its loop stopped: the runtime's close, after the group's last loop, ends the connection
        }
    }

    private void deliverAccepted() {
        boolean delivered = false;
        RdmaSocketChannel child;
        while (readPending && (child = accepted.poll()) != null) {
            if (!child.isOpen()) {
                continue; // its peer left before it was read: registering it would only fail
            }
            delivered = true;
            pipeline().fireChannelRead(child);
        }
        if (delivered) {
            if (!config.isAutoRead()) {
                readPending = false;
            }
            pipeline().fireChannelReadComplete();
        }
    }
}
