package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderDomain;
import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.ProviderSharedReceiveQueue;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.SharedReceiveQueueEvents;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One protection domain ({@code ibv_pd}): the memory regions, windows and shared receive queues made in it, and the
 * QPs of the connections opened in it, so the device refuses any rkey of another domain that a peer sends. Each has
 * its own windows ({@link VerbsWindows}, which a Send with Invalidate on one of its QPs names) and its own empty
 * sink (a READ or receive without bytes still names a segment of the QP's domain). A QP or shared receive queue
 * outlives the core's view of it (destroyed on a poller once its connections ended), so the domain counts them and
 * is deallocated when it is closed and the last of them is gone. Thread-safe.
 */
final class VerbsDomain implements ProviderDomain {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsDomain.class);

    private final VerbsDevice device;
    private final IbvPd pd;
    private final long pdHandle;
    /** The domain's memory windows; null where the device binds none. */
    private final VerbsWindows windows;
    private final VerbsRegion emptySink;
    private final TokenRetirements tokenRetirements = new TokenRetirements();
    /** QPs and shared receive queues created in the domain and not yet destroyed. Guarded by this. */
    private int holders;
    private boolean closing;
    private boolean released;

    VerbsDomain(VerbsDevice device, IbvPd pd, boolean bindsWindows) {
        this.device = device;
        this.pd = pd;
        this.pdHandle = ((NatObject) pd).getObjId();
        this.windows = bindsWindows ? new VerbsWindows(device.adapterInfo().deviceName(), pdHandle,
                tokenRetirements) : null;
        this.emptySink = (VerbsRegion) register(ByteBuffer.allocateDirect(8), Set.of(Access.LOCAL_WRITE));
    }

    long pdHandle() {
        return pdHandle;
    }

    /** The domain's memory windows, for a peer's Send with Invalidate; null where the device binds none. */
    VerbsWindows windows() {
        return windows;
    }

    /** The tokens this side retired in the domain, so far. */
    TokenRetirements tokenRetirements() {
        return tokenRetirements;
    }

    /** A registered region whose address and key a READ or receive without bytes names as its empty segment. */
    VerbsRegion emptySink() {
        return emptySink;
    }

    /** A QP or shared receive queue was created in the domain. */
    synchronized void hold() {
        holders++;
    }

    /** A QP or shared receive queue of the domain was destroyed: a closed domain goes with the last. */
    void letGo() {
        synchronized (this) {
            holders--;
            if (!closing || holders > 0 || released) {
                return;
            }
            released = true;
        }
        release();
    }

    @Override
    public ProviderWindow allocateWindow() {
        if (windows == null) {
            throw new RdmaException(Status.NOT_SUPPORTED, device.adapterInfo().deviceName() + " allocates no type-2 "
                    + "memory windows (ibv_alloc_mw)");
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
                    + " segments on " + device.adapterInfo().deviceName() + " failed: errno " + errno);
        }
        hold();
        VerbsSharedReceiveQueue queue = new VerbsSharedReceiveQueue(device, this, handle, depth, maxSge, events);
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
                    tokenRetirements, (where, error) -> LOG.warn("{} failed", where, error));
        } catch (IOException e) {
            int errno = VerbsErrors.errnoOf(e);
            throw new RdmaException(errno == VerbsErrors.EINVAL ? Status.INVALID_PARAMETER
                    : Status.INSUFFICIENT_RESOURCES, "registering " + view.remaining() + " bytes failed: " + e, e);
        }
    }

    /** Deallocated now if no QP or shared receive queue of it is left, else when the last is destroyed. */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            if (holders > 0) {
                return;
            }
            released = true;
        }
        release();
    }

    private void release() {
        emptySink.invalidate();
        if (windows != null) {
            windows.closeAll();
        }
        try {
            pd.deallocPd();
        } catch (Exception e) {
            LOG.warn("releasing a protection domain of {} failed", device.adapterInfo().deviceName(), e);
        }
    }
}
