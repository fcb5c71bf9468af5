package dev.rdmafutures.soft;

import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.spi.AdapterInfoBuilder;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.EventLoop;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.SharedAddress;
import dev.rdmafutures.providerkit.PeerFaultLog;
import dev.rdmafutures.providerkit.SharedPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The soft provider opened for one runtime: adapter limits, options, the event loops of its pollers, shared
 * receive queues, and the STag table of its regions and memory windows. Its {@link AdapterInfo}: queues up to
 * {@value #MAX_QUEUE_DEPTH} deep (shared receive queues too), up to {@value #MAX_SGE} segments per operation and per
 * receive, read limits up to {@value #MAX_READ_LIMIT}, memory windows ({@link SoftWindow}), remote invalidation.
 */
final class SoftDevice implements ProviderDevice {
    /** siw's per-QP maxima (SIW_MAX_IRD_QP / SIW_MAX_ORD_QP), so that both ends offer alike. */
    static final int MAX_READ_LIMIT = 128;
    /**
     * The deepest initiator and receive queues a soft connection may have: generous (siw's default SQ/RQ size), and
     * still a bound on what one connection holds under a fast poster.
     */
    static final int MAX_QUEUE_DEPTH = 16384;
    /**
     * The most segments one soft operation or receive may carry: generous (NDK adapters report a few dozen), as
     * gathering and scattering cost soft only a view of registered memory per segment, and still a bound on the work
     * one request makes for the writer and the placement.
     */
    static final int MAX_SGE = 64;
    static final String OPTION_CRC = "soft.crc";
    /** The TCP accept queue: Linux caps it at net.core.somaxconn (4096 by default); the listener's backlog is ours. */
    private static final int ACCEPT_QUEUE = 4096;

    private final ProviderConfig config;
    private final boolean crcRequested;
    private final AdapterInfo adapterInfo;
    private final List<SoftEventLoop> loops = new CopyOnWriteArrayList<>();
    private final AtomicInteger nextLoop = new AtomicInteger();
    private final SharedPorts sharedPorts = new SharedPorts();
    private final RegionTable regions = new RegionTable();
    private final PeerFaultLog peerFaultLog = new PeerFaultLog();

    SoftDevice(ProviderConfig config) {
        this.config = config;
        this.crcRequested = parseOptions(config.options());
        int pd = MpaMessage.MAX_CONSUMER_PRIVATE_DATA;
        this.adapterInfo = new AdapterInfoBuilder()
                .providerName(SoftProvider.NAME)
                .deviceName("soft-tcp")
                .transport(AdapterInfo.Transport.IWARP)
                .maxReadLimits(MAX_READ_LIMIT, MAX_READ_LIMIT)
                .maxQueueDepths(MAX_QUEUE_DEPTH, MAX_QUEUE_DEPTH)
                .maxSge(MAX_SGE, MAX_SGE)
                .maxSharedReceiveQueueDepth(MAX_QUEUE_DEPTH)
                .maxPrivateData(pd, pd, pd)
                .readLocalInvalidateSupported(true)
                .memoryWindowsSupported(true)
                .fastRegisterSupported(true)
                .build();
    }

    private static boolean parseOptions(Map<String, String> options) {
        boolean crc = true;
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (!e.getKey().startsWith(SoftProvider.NAME + ".")) {
                continue;
            }
            if (!e.getKey().equals(OPTION_CRC)) {
                throw new RdmaException(Status.INVALID_PARAMETER,
                        "unknown option " + e.getKey() + "; the soft provider knows " + OPTION_CRC);
            }
            String v = e.getValue();
            if (!v.equals("true") && !v.equals("false")) {
                throw new RdmaException(Status.INVALID_PARAMETER, OPTION_CRC + " must be true or false: " + v);
            }
            crc = Boolean.parseBoolean(v);
        }
        return crc;
    }

    ProviderConfig config() {
        return config;
    }

    boolean crcRequested() {
        return crcRequested;
    }

    @Override
    public AdapterInfo adapterInfo() {
        return adapterInfo;
    }

    @Override
    public EventLoop newEventLoop(PollerContext poller) {
        SoftEventLoop loop = new SoftEventLoop(this, poller);
        loops.add(loop);
        return loop;
    }

    /** The loop that takes the next accepted connection, round robin. */
    SoftEventLoop nextLoop() {
        return loops.get(Math.floorMod(nextLoop.getAndIncrement(), loops.size()));
    }

    @Override
    public BoundListener bindListener(InetSocketAddress address) {
        if (sharedPorts.overlaps(address)) {
            throw new RdmaException(Status.SHARING_VIOLATION,
                    "port " + address.getPort() + " belongs to a shared endpoint; a listener may not share it");
        }
        ServerSocketChannel channel;
        try {
            channel = ServerSocketChannel.open();
        } catch (IOException e) {
            throw SocketErrors.resources(e, "open listener");
        }
        try {
            channel.configureBlocking(false);
            channel.bind(address, ACCEPT_QUEUE);
            return new SoftListener(this, channel);
        } catch (IOException e) {
            closeQuietly(channel);
            throw SocketErrors.onBind(e, address);
        }
    }

    @Override
    public SharedAddress reserveSharedAddress(InetSocketAddress address) {
        // An unconnected socket bound with SO_REUSEADDR holds the port; every connect from the endpoint binds the
        // same address with SO_REUSEADDR too, which Linux allows as long as no socket on it listens.
        SocketChannel anchor;
        try {
            anchor = SocketChannel.open();
        } catch (IOException e) {
            throw SocketErrors.resources(e, "open shared endpoint");
        }
        try {
            anchor.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            anchor.bind(address);
            InetSocketAddress bound = (InetSocketAddress) anchor.getLocalAddress();
            return sharedPorts.hold(bound, () -> closeQuietly(anchor));
        } catch (IOException e) {
            closeQuietly(anchor);
            throw SocketErrors.onBind(e, address);
        }
    }

    static void closeQuietly(java.nio.channels.Channel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing a socket can only fail in ways that leave nothing more to release.
        }
    }

    @Override
    public ProviderDomain defaultDomain() {
        return regions;
    }

    /** A domain is an STag table of its own: a peer's token is looked up only in its connection's. */
    @Override
    public ProviderDomain createDomain() {
        return new RegionTable();
    }

    /** Where this runtime's connections log what their peers did wrong. */
    PeerFaultLog peerFaultLog() {
        return peerFaultLog;
    }

    @Override
    public void close() {
        loops.clear();
    }
}
