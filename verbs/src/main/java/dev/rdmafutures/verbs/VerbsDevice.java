package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatCmaIdPrivate;
import com.ibm.disni.verbs.impl.NatObject;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.EventLoop;
import dev.rdmafutures.spi.PollerContext;
import dev.rdmafutures.spi.ProviderConfig;
import dev.rdmafutures.spi.ProviderDevice;
import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.spi.SharedAddress;
import dev.rdmafutures.providerkit.SharedPorts;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RDMA device opened for a runtime: librdmacm's context for it (the one CM ids resolve to), a protection
 * domain, the adapter's limits ({@link DeviceCapabilities}), its memory windows and shared receive queues.
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
    private final IbvPd pd;
    private final long pdHandle;
    private final int maxReadSge;
    private final boolean shortCrossings;
    private final int invalidatedFlags;
    private final int maxCompletionQueueEntries;
    private final AdapterInfo adapterInfo;
    /** The device's memory windows; null where it binds none. */
    private final VerbsWindows windows;
    /** The segment of READs and receives without bytes: siw takes neither without one (iWARP names a sink). */
    private final VerbsRegion emptySink;
    private final SharedPorts sharedPorts = new SharedPorts();
    private final List<VerbsEventLoop> loops = new ArrayList<>();
    private final RetryBudget retryBudget;

    /** Opened by {@link DeviceOpener}: {@code pd} allocated on {@code context}, whose limits are {@code capabilities}. */
    VerbsDevice(ProviderConfig config, RdmaCm cm, NativeDispatcher dispatcher, IbvContext context,
                IbvPd pd, DeviceCapabilities capabilities) {
        this.config = config;
        this.retryBudget = RetryBudget.within(config.livenessTimeout());
        this.cm = cm;
        this.dispatcher = dispatcher;
        this.context = context;
        this.contextHandle = ((NatObject) context).getObjId();
        this.pd = pd;
        this.pdHandle = ((NatObject) pd).getObjId();
        this.maxReadSge = capabilities.maxReadSge();
        this.shortCrossings = capabilities.shortCrossings();
        this.invalidatedFlags = capabilities.invalidatedFlags();
        this.maxCompletionQueueEntries = capabilities.maxCompletionQueueEntries();
        this.adapterInfo = capabilities.adapterInfo();
        this.windows = adapterInfo.isMemoryWindowSupported()
                ? new VerbsWindows(adapterInfo.deviceName(), pdHandle) : null;
        this.emptySink = (VerbsRegion) register(ByteBuffer.allocateDirect(8), Set.of(Access.LOCAL_WRITE));
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

    long pdHandle() {
        return pdHandle;
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

    /** Whether the device binds memory windows: a bind may take two work requests ({@link SendList}). */
    boolean bindsWindows() {
        return windows != null;
    }

    /** The device's memory windows, for a peer's Send with Invalidate; null where it binds none. */
    VerbsWindows windows() {
        return windows;
    }

    /** The {@code wc_flags} bits that say a receive completion revoked an rkey ({@link DeviceCapabilities}). */
    int invalidatedFlags() {
        return invalidatedFlags;
    }

    /** A registered region whose address and key a READ or receive without bytes names as its empty segment. */
    VerbsRegion emptySink() {
        return emptySink;
    }

    /**
     * Runs {@code task} on a poller of this runtime: at once when called on one, else handed to the first; false
     * when they have all stopped.
     */
    boolean runOnPoller(Runnable task) {
        VerbsEventLoop target = null;
        boolean here = false;
        synchronized (loops) {
            for (VerbsEventLoop loop : loops) {
                here |= loop.poller().inPollerThread();
            }
            if (!here && !loops.isEmpty()) {
                target = loops.get(0);
            }
        }
        if (here) {
            task.run();
            return true;
        }
        return target != null && target.execute(task);
    }

    /** The loop of the poller running this thread, or null on any other thread. */
    VerbsEventLoop loopOnThisThread() {
        synchronized (loops) {
            for (int i = 0; i < loops.size(); i++) { // by index: no iterator per receive
                if (loops.get(i).poller().inPollerThread()) {
                    return loops.get(i);
                }
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
        synchronized (loops) {
            loops.add(loop);
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
    public ProviderWindow allocateWindow() {
        if (windows == null) {
            throw new RdmaException(Status.NOT_SUPPORTED, adapterInfo.deviceName() + " allocates no type-2 memory "
                    + "windows (ibv_alloc_mw)");
        }
        return windows.allocate();
    }

    @Override
    public ProviderSharedReceiveQueue createSharedReceiveQueue(int depth, int maxSge,
                                                               SharedReceiveQueueEvents events) {
        long handle = NativeVerbs.createSrq(pdHandle, depth, maxSge);
        if (handle < 0) {
            int errno = (int) -handle;
            throw new RdmaException(errno == VerbsErrors.EINVAL ? Status.INVALID_PARAMETER
                    : Status.INSUFFICIENT_RESOURCES, "ibv_create_srq of " + depth + " receives of " + maxSge
                    + " segments on " + adapterInfo.deviceName() + " failed: errno " + errno);
        }
        VerbsSharedReceiveQueue queue = new VerbsSharedReceiveQueue(this, handle, depth, maxSge, events);
        DeviceEvents.watch(queue);
        return queue;
    }

    @Override
    public ProviderRegion register(ByteBuffer bytes, Set<Access> access) {
        if (!bytes.isDirect()) {
            throw new RdmaException(Status.INVALID_PARAMETER,
                    "the verbs provider registers direct buffers only (ByteBuffer.allocateDirect)");
        }
        ByteBuffer view = bytes.slice();
        int flags = 0;
        if (access.contains(Access.LOCAL_WRITE)) {
            flags |= IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_READ)) {
            flags |= IbvMr.IBV_ACCESS_REMOTE_READ;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            // verbs requires local write with remote write
            flags |= IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if (windows != null && (access.contains(Access.REMOTE_READ) || access.contains(Access.REMOTE_WRITE))) {
            flags |= IbvMr.IBV_ACCESS_MW_BIND; // a window may be bound over it
        }
        try {
            IbvMr mr = pd.regMr(MemoryUtils.getAddress(view), view.remaining(), flags).execute().free().getMr();
            return new VerbsRegion(mr, ((NatObject) mr).getObjId(), view, access, windows,
                    (where, error) -> LOG.warn("{} failed", where, error));
        } catch (IOException e) {
            int errno = VerbsErrors.errnoOf(e);
            throw new RdmaException(errno == VerbsErrors.EINVAL ? Status.INVALID_PARAMETER
                    : Status.INSUFFICIENT_RESOURCES, "registering " + view.remaining() + " bytes failed: " + e, e);
        }
    }

    @Override
    public void close() {
        synchronized (loops) {
            loops.clear();
        }
        emptySink.invalidate();
        if (windows != null) {
            windows.closeAll();
        }
        try {
            pd.deallocPd();
        } catch (Exception e) {
            LOG.warn("releasing the protection domain of {} failed", adapterInfo.deviceName(), e);
        }
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
