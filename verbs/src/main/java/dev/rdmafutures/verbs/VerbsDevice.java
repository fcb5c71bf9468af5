package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatCmaIdPrivate;
import com.ibm.disni.verbs.impl.NatObject;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.EventLoop;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.SharedAddress;
import dev.rdmafutures.providerkit.PeerFaultLog;
import dev.rdmafutures.providerkit.SharedPorts;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RDMA device opened for a runtime: librdmacm's context for it (the one CM ids resolve to), its protection
 * domains ({@link VerbsDomain}; {@link DeviceOpener} allocates the default one) with their memory windows and shared
 * receive queues, and the adapter's limits ({@link DeviceCapabilities}).
 * {@link DeviceOpener} finds and opens it.
 */
final class VerbsDevice implements ProviderDevice {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsDevice.class);
    /**
     * rdma_listen's backlog 0: the kernel's maximum (net.rdma_ucm.max_backlog, 1024 by default) of CONNECT_REQUEST
     * events not yet taken. Past it the kernel drops a request without a reject, and the peer's CM retries it seconds
     * later, so it must not be the listener's backlog, which refuses.
     */
    private static final int KERNEL_MAXIMUM_BACKLOG = 0;

    private final ProviderConfig config;
    private final RdmaCm cm;
    private final NativeDispatcher dispatcher;
    private final IbvContext context;
    private final long contextHandle;
    private final int maxReadSge;
    private final boolean shortCrossings;
    private final int invalidatedFlags;
    private final int maxCompletionQueueEntries;
    private final AdapterInfo adapterInfo;
    private final boolean bindsWindows;
    /** The domain of what the runtime makes without naming one: the PD {@link DeviceOpener} allocated. */
    private final VerbsDomain defaultDomain;
    private final SharedPorts sharedPorts = new SharedPorts();
    /**
     * The pollers' loops, replaced whole when one is added or the device closes: a receive posted on a poller finds
     * its loop without a lock ({@link #loopOnThisThread}).
     */
    private volatile VerbsEventLoop[] loops = new VerbsEventLoop[0];
    private final AtomicInteger nextRequestLoop = new AtomicInteger();
    private final RetryBudget retryBudget;
    /** Where QP errors, which a peer can provoke at will, are logged: a WARN line per peer address a minute. */
    private final PeerFaultLog peerFaultLog = new PeerFaultLog();

    /** Opened by {@link DeviceOpener}: {@code pd} allocated on {@code context}, whose limits are {@code capabilities}. */
    VerbsDevice(ProviderConfig config, RdmaCm cm, NativeDispatcher dispatcher, IbvContext context,
                IbvPd pd, DeviceCapabilities capabilities) {
        this.config = config;
        this.retryBudget = RetryBudget.within(config.livenessTimeout());
        this.cm = cm;
        this.dispatcher = dispatcher;
        this.context = context;
        this.contextHandle = ((NatObject) context).getObjId();
        this.maxReadSge = capabilities.maxReadSge();
        this.shortCrossings = capabilities.shortCrossings();
        this.invalidatedFlags = capabilities.invalidatedFlags();
        this.maxCompletionQueueEntries = capabilities.maxCompletionQueueEntries();
        this.adapterInfo = capabilities.adapterInfo();
        this.bindsWindows = adapterInfo.isMemoryWindowSupported();
        this.defaultDomain = new VerbsDomain(this, pd, bindsWindows);
    }

    ProviderConfig config() {
        return config;
    }

    /** What every RC queue pair on this device retries for before a silent peer fails its oldest request. */
    RetryBudget retryBudget() {
        return retryBudget;
    }

    RdmaCm cm() {
        return cm;
    }

    IbvContext context() {
        return context;
    }

    long contextHandle() {
        return contextHandle;
    }

    /** The most segments one READ work request scatters into ({@code max_sge_rd}). */
    int maxReadSge() {
        return maxReadSge;
    }

    /** How large one CQ can be ({@code max_cqe}). */
    int maxCompletionQueueEntries() {
        return maxCompletionQueueEntries;
    }

    /** Whether short payloads must not cross a page inside one segment ({@link SendList}: siw). */
    boolean shortCrossings() {
        return shortCrossings;
    }

    PeerFaultLog peerFaultLog() {
        return peerFaultLog;
    }

    /** Whether the device binds memory windows: a bind may take two work requests ({@link SendList}). */
    boolean bindsWindows() {
        return bindsWindows;
    }

    /** The {@code wc_flags} bits that say a receive completion revoked an rkey ({@link DeviceCapabilities}). */
    int invalidatedFlags() {
        return invalidatedFlags;
    }

    /**
     * Runs {@code task} on a poller of this runtime: at once when called on one, else handed to the first; false
     * when they have all stopped.
     */
    boolean runOnPoller(Runnable task) {
        if (loopOnThisThread() != null) {
            task.run();
            return true;
        }
        VerbsEventLoop[] all = loops;
        return all.length > 0 && all[0].execute(task);
    }

    /** The loop the next connect request goes to, each in turn; null once the device closed. */
    VerbsEventLoop nextRequestLoop() {
        VerbsEventLoop[] all = loops;
        return all.length == 0 ? null : all[Math.floorMod(nextRequestLoop.getAndIncrement(), all.length)];
    }

    /** The loop of the poller running this thread, or null on any other thread. */
    VerbsEventLoop loopOnThisThread() {
        for (VerbsEventLoop loop : loops) {
            if (loop.poller().inPollerThread()) {
                return loop;
            }
        }
        return null;
    }

    /** Wraps an id the CM created for a connect request (it reports on its listener's channel). */
    RdmaCmId wrapRequestId(long handle, RdmaEventChannel channel) throws IOException {
        NatCmaIdPrivate id = new NatCmaIdPrivate(handle, channel, dispatcher);
        id.setVerbs(context);
        return id;
    }

    @Override
    public AdapterInfo adapterInfo() {
        return adapterInfo;
    }

    @Override
    public EventLoop newEventLoop(PollerContext poller) {
        VerbsEventLoop loop = new VerbsEventLoop(this, poller);
        synchronized (this) {
            VerbsEventLoop[] grown = Arrays.copyOf(loops, loops.length + 1);
            grown[grown.length - 1] = loop;
            loops = grown;
        }
        return loop;
    }

    @Override
    public BoundListener bindListener(InetSocketAddress address) {
        if (sharedPorts.overlaps(address)) {
            throw new RdmaException(Status.SHARING_VIOLATION,
                    "port " + address.getPort() + " belongs to a shared endpoint; a listener may not share it");
        }
        RdmaEventChannel channel = null;
        RdmaCmId id = null;
        try {
            channel = cm.createEventChannel();
            id = cm.createId(channel, RdmaCm.RDMA_PS_TCP);
            id.bindAddr(address);
            id.listen(KERNEL_MAXIMUM_BACKLOG);
            return new VerbsListener(channel, id, (InetSocketAddress) id.getSource());
        } catch (IOException e) {
            destroyQuietly(id);
            destroyQuietly(channel);
            throw VerbsErrors.of(e, VerbsErrors.ephemeralOnLocalAddress(address), "listen on " + address);
        }
    }

    @Override
    public SharedAddress reserveSharedAddress(InetSocketAddress address) {
        RdmaEventChannel channel = null;
        RdmaCmId anchor = null;
        try {
            channel = cm.createEventChannel();
            anchor = cm.createId(channel, RdmaCm.RDMA_PS_TCP);
            int rc = NativeVerbs.setReuseAddr(((NatObject) anchor).getObjId(), 1);
            if (rc < 0) {
                throw VerbsErrors.of(-rc, false, "REUSEADDR on " + address);
            }
            anchor.bindAddr(address);
            InetSocketAddress bound = (InetSocketAddress) anchor.getSource();
            RdmaEventChannel anchorChannel = channel;
            RdmaCmId anchorId = anchor;
            return sharedPorts.hold(bound, () -> {
                destroyQuietly(anchorId);
                destroyQuietly(anchorChannel);
            });
        } catch (IOException e) {
            destroyQuietly(anchor);
            destroyQuietly(channel);
            throw VerbsErrors.of(e, VerbsErrors.ephemeralOnLocalAddress(address), "shared endpoint on " + address);
        }
    }

    @Override
    public ProviderDomain defaultDomain() {
        return defaultDomain;
    }

    @Override
    public ProviderDomain createDomain() {
        try {
            return new VerbsDomain(this, context.allocPd(), bindsWindows);
        } catch (IOException e) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "ibv_alloc_pd on " + adapterInfo.deviceName()
                    + " failed: " + e, e);
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            loops = new VerbsEventLoop[0];
        }
        defaultDomain.close();
    }

    static void destroyQuietly(RdmaCmId id) {
        if (id == null) {
            return;
        }
        try {
            if (id.getQp() != null) {
                id.destroyQP();
            }
            id.destroyId();
        } catch (IOException e) {
            LoggerFactory.getLogger(VerbsDevice.class).debug("destroying a CM id failed", e);
        }
    }

    static void destroyQuietly(RdmaEventChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.destroyEventChannel();
        } catch (IOException e) {
            LoggerFactory.getLogger(VerbsDevice.class).debug("destroying a CM event channel failed", e);
        }
    }
}
