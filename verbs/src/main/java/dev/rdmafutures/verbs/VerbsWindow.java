package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvMr;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkRequest;
import dev.rdmafutures.verbs.jni.NativeVerbs;

/**
 * A verbs type-2 memory window ({@code ibv_alloc_mw}): bound on one QP by an {@code IBV_WR_BIND_MW} in its send
 * queue, reachable through that QP only, revoked by {@code IBV_WR_LOCAL_INV}, by the peer's Send with Invalidate, or
 * by deallocation. Every bind takes the next key ({@code ibv_inc_rkey}); a window the device still holds bound is
 * invalidated first in the same chain, as a type-2 window binds only when free. libibverbs leaves a type-2 window's
 * rkey to the application, so the rkey the last posted bind gave it is written back into {@code struct ibv_mw}, where
 * the provider reads the current one for the next bind.
 *
 * <p>What the device holds (bound, over which region, with which rkey) changes as work requests are posted, in the
 * order they run; what {@link #isBound()} and {@link #token()} report changes when they complete. A region with
 * windows bound over it cannot be deregistered (IBA 10.6.7.2.6), so deregistering it deallocates those windows and
 * gives each a fresh one: their tokens are revoked, as a region's end revokes its windows on every adapter. Changes
 * are serialized on the window; posts come from the pollers, {@link #close()} and region ends from any thread.
 */
final class VerbsWindow implements ProviderWindow {
    /** A completed bind: the token, the address its span starts at, and the connection it was made on. */
    private record Binding(int token, long base, VerbsConnection connection) {
    }

    private final VerbsWindows windows;
    private final long pdHandle;
    /** The {@code struct ibv_mw *}; replaced when a region's end revokes it. Guarded by this. */
    private long handle;
    /** The rkey the device holds for the window, as the last posted bind left it. Guarded by this. */
    private int rkey;
    /** The region the device holds the window bound over, as posted; null when free. Guarded by this. */
    private VerbsRegion boundOver;
    /** The QP the device holds the window bound on, as posted; null when free. Guarded by this. */
    private VerbsQueuePair boundOn;
    private boolean closed;
    private volatile Binding binding;
    private volatile int lastToken;
    private volatile long lastBase;

    private VerbsWindow(VerbsWindows windows, long pdHandle, long handle, int rkey) {
        this.windows = windows;
        this.pdHandle = pdHandle;
        this.handle = handle;
        this.rkey = rkey;
    }

    /** Allocates a window in protection domain {@code pdHandle}. */
    static VerbsWindow allocate(VerbsWindows windows, long pdHandle) {
        long handle = allocateHandle(pdHandle);
        return new VerbsWindow(windows, pdHandle, handle, (int) NativeVerbs.mwRkey(handle));
    }

    private static long allocateHandle(long pdHandle) {
        long handle = NativeVerbs.allocMw(pdHandle);
        if (handle < 0) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "ibv_alloc_mw failed: errno " + -handle);
        }
        return handle;
    }

    /** The index of the window's rkeys, the same across binds: how a Send with Invalidate's rkey finds it. */
    synchronized int index() {
        return rkey >>> 8;
    }

    /**
     * Appends a BIND_WINDOW or INVALIDATE_WINDOW {@code request} to {@code queuePair}'s send chain under {@code wrId}
     * (an invalidation before a bind under {@code partId}) and posts the chain at once, under this window's lock: the
     * provider reads the window's current rkey from {@code struct ibv_mw} when the bind is posted, and the next bind
     * must find the one this bind gives. What the device holds changes only if it took the request.
     *
     * @throws RdmaException INVALID_DEVICE_STATE when the window was closed (nothing was appended)
     */
    synchronized void post(WorkRequest request, VerbsQueuePair queuePair, int sequence, long wrId, long partId) {
        if (closed) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, "the memory window was closed");
        }
        boolean bind = request.kind() == WorkRequest.Kind.BIND_WINDOW;
        int next = bind ? (rkey & ~0xFF) | ((rkey + 1) & 0xFF) : rkey;
        VerbsRegion region = bind ? (VerbsRegion) request.region(0) : null;
        long base = bind ? region.address() + request.offset(0) : 0;
        SendList list = queuePair.sendList();
        if (bind) {
            list.writeBind(wrId, partId, boundOver != null, handle, rkey, next, region.mrHandle(), base,
                    request.segmentLength(0), accessOf(request.flags()));
        } else {
            list.writeInvalidate(wrId, rkey);
        }
        if (!bind || boundOver != null) {
            windows.tokenRetired(); // before the device can revoke it: a refusal it causes finds it counted
        }
        if (!queuePair.postWithWindowRequest(request, sequence, next)) {
            return;
        }
        if (bind) {
            rkey = next;
            NativeVerbs.mwSetRkey(handle, next);
            boundOver = region;
            boundOn = queuePair;
        } else {
            boundOver = null;
            boundOn = null;
        }
    }

    private static int accessOf(int flags) {
        return ((flags & WorkRequest.BIND_REMOTE_READ) != 0 ? IbvMr.IBV_ACCESS_REMOTE_READ : 0)
                | ((flags & WorkRequest.BIND_REMOTE_WRITE) != 0 ? IbvMr.IBV_ACCESS_REMOTE_WRITE : 0);
    }

    /** A bind that gave {@code token} over the span starting at {@code base} completed on {@code connection}. */
    void bound(int token, long base, VerbsConnection connection) {
        binding = new Binding(token, base, connection);
        lastToken = token;
        lastBase = base;
    }

    /** An invalidation of {@code token}, local or by the peer, completed. */
    void invalidated(int token) {
        Binding b = binding;
        if (b != null && b.token() == token) {
            binding = null;
        }
    }

    /** The peer's Send with Invalidate revoked {@code token}: the device holds the window free now. */
    synchronized void invalidatedRemotely(int token) {
        if (token == rkey) {
            boundOver = null;
            boundOn = null;
        }
        invalidated(token);
    }

    /**
     * A bind or invalidation did not run (it failed or was flushed): the device may hold another rkey than this
     * window thinks, so it takes a fresh window.
     */
    synchronized void failed() {
        replace();
    }

    /**
     * {@code queuePair} is about to be destroyed: a window the device holds bound on it takes a fresh one, as rxe
     * holds such a QP until its windows are freed, and its destruction would wait for that.
     */
    synchronized void queuePairEnding(VerbsQueuePair queuePair) {
        if (boundOn == queuePair) {
            replace();
        }
    }

    /** {@code region} is being deregistered: a window the device holds bound over it takes a fresh one. */
    synchronized void regionEnding(VerbsRegion region) {
        if (boundOver == region) {
            replace();
        }
    }

    private void replace() {
        if (closed) {
            return;
        }
        windows.tokenRetired();
        binding = null;
        boundOver = null;
        boundOn = null;
        int old = index();
        int rc = NativeVerbs.deallocMw(handle);
        if (rc < 0) {
            windows.recordError("ibv_dealloc_mw", "errno " + -rc);
        }
        try {
            handle = allocateHandle(pdHandle);
        } catch (RdmaException e) {
            closed = true;
            windows.removed(this, old);
            windows.recordError("ibv_alloc_mw", e.getMessage() + "; the window is closed");
            return;
        }
        rkey = (int) NativeVerbs.mwRkey(handle);
        windows.reindexed(this, old);
    }

    @Override
    public int token() {
        Binding b = binding;
        return b != null ? b.token() : lastToken;
    }

    @Override
    public long remoteBase() {
        Binding b = binding;
        return b != null ? b.base() : lastBase;
    }

    @Override
    public boolean isBound() {
        Binding b = binding;
        return b != null && b.connection().isEstablished();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        windows.tokenRetired();
        binding = null;
        boundOver = null;
        boundOn = null;
        int rc = NativeVerbs.deallocMw(handle);
        if (rc < 0) {
            windows.recordError("ibv_dealloc_mw", "errno " + -rc);
        }
        windows.removed(this, index());
    }

    @Override
    public String toString() {
        return "VerbsWindow[" + Integer.toHexString(token()) + (isBound() ? ", bound" : "") + "]";
    }
}
