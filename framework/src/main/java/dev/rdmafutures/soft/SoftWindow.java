package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkRequest;

/**
 * A soft memory window: an STag index of its own in the device's table, bound by a BIND_WINDOW request over part of
 * a region with REMOTE_READ and/or REMOTE_WRITE. Every bind, also of a bound window (which rebinds it), takes the
 * next key, so a peer holding an earlier STag is refused. A binding is reachable only through the connection it was
 * made on (verbs type-2 windows): {@link Placement} checks an inbound STag against the current {@link Binding}. It
 * is revoked by an INVALIDATE_WINDOW request, by that connection's peer's Send with Invalidate, by {@link #close},
 * and, without a word, once its region is invalidated or its connection ends. Changes are serialized on the window;
 * the data path reads the immutable binding through a volatile field. Thread-safe.
 */
final class SoftWindow implements ProviderWindow, SoftStag {
    private static final int RIGHTS = WorkRequest.BIND_REMOTE_READ | WorkRequest.BIND_REMOTE_WRITE;

    /** The connection windows are bound on, as they see it: its identity, and whether it ended. */
    static final class Scope {
        private volatile boolean ended;

        /** The connection ended: its windows grant nothing more. */
        void end() {
            ended = true;
        }

        boolean ended() {
            return ended;
        }
    }

    /**
     * One binding: {@code stag} grants {@code rights} (BIND_REMOTE_* bits) over {@code length} bytes of
     * {@code region} from {@code offset}, addressed by tagged offsets 0..length, on the connection {@code scope}.
     */
    record Binding(int stag, SoftRegion region, int offset, int length, int rights, Scope scope) {
        boolean allows(Access right) {
            int bit = switch (right) {
                case REMOTE_READ -> WorkRequest.BIND_REMOTE_READ;
                case REMOTE_WRITE -> WorkRequest.BIND_REMOTE_WRITE;
                case LOCAL_WRITE -> 0;
            };
            return (rights & bit) != 0;
        }

        /** Whether it grants anything still: its region is valid and its connection has not ended. */
        boolean live() {
            return region.isValid() && !scope.ended();
        }
    }

    private final RegionTable table;
    private final int index;
    /** The key of the last STag handed out: the next bind takes the one after it. Guarded by this. */
    private int key;
    private volatile int stag;
    private volatile Binding binding;
    private volatile boolean closed;

    /** A window owning {@code stag}'s index; its first bind takes the key after {@code stag}'s. */
    SoftWindow(RegionTable table, int stag) {
        this.table = table;
        this.index = SoftStag.indexOf(stag);
        this.key = stag & 0xFF;
    }

    /**
     * Carries out a BIND_WINDOW or INVALIDATE_WINDOW request that reached the head of the send queue of the
     * connection {@code scope}: null once it is in force, else why it failed (the window is then unchanged).
     */
    static RdmaException perform(WorkRequest request, Scope scope) {
        SoftWindow window = (SoftWindow) request.window();
        return request.kind() == WorkRequest.Kind.BIND_WINDOW ? window.bind(request, scope) : window.invalidate();
    }

    /** The current binding, or null; the data path checks {@link Binding#live()} and its STag itself. */
    Binding binding() {
        return binding;
    }

    private synchronized RdmaException bind(WorkRequest request, Scope scope) {
        if (closed) {
            return closedError();
        }
        SoftRegion region = (SoftRegion) request.region(0);
        int offset = request.offset(0);
        int length = request.segmentLength(0);
        int rights = request.flags() & RIGHTS;
        // The core checked all of this when the bind was posted; the region may have been invalidated since, and
        // nothing may widen what the region grants.
        if (rights == 0) {
            return new RdmaException(Status.INVALID_PARAMETER, "a window bind grants REMOTE_READ and/or REMOTE_WRITE");
        }
        if (!region.isValid()) {
            return new RdmaException(Status.ACCESS_VIOLATION, "the region to bind the window over was invalidated");
        }
        if (((rights & WorkRequest.BIND_REMOTE_READ) != 0 && !region.allows(Access.REMOTE_READ))
                || ((rights & WorkRequest.BIND_REMOTE_WRITE) != 0 && !region.allows(Access.REMOTE_WRITE))) {
            return new RdmaException(Status.ACCESS_VIOLATION, "the region grants " + region.access()
                    + "; a window over it cannot grant more");
        }
        if (offset < 0 || length < 0 || offset > region.length() - length) {
            return new RdmaException(Status.ACCESS_VIOLATION, "[" + offset + ", +" + length
                    + ") is outside the region of " + region.length() + " bytes");
        }
        key = (key + 1) & 0xFF;
        int next = index << 8 | key;
        revoke();
        binding = new Binding(next, region, offset, length, rights, scope);
        stag = next;
        return null;
    }

    private synchronized RdmaException invalidate() {
        if (closed) {
            return closedError();
        }
        revoke();
        return null;
    }

    /** Ends the current binding, if any; its STag is retired. Guarded by this. */
    private void revoke() {
        Binding b = binding;
        binding = null;
        if (b != null) {
            table.retire(b.stag());
        }
    }

    /**
     * A peer's Send with Invalidate arrived on the connection {@code scope} naming {@code invalidated}: revokes the
     * binding if that is its live STag and it was made on that connection (the iWARP rule for windows bound to a
     * stream); false, changing nothing, otherwise.
     */
    synchronized boolean invalidateRemotely(int invalidated, Scope scope) {
        Binding b = binding;
        if (closed || b == null || b.stag() != invalidated || b.scope() != scope || !b.live()) {
            return false;
        }
        revoke();
        return true;
    }

    private static RdmaException closedError() {
        return new RdmaException(Status.INVALID_DEVICE_STATE, "the memory window was closed");
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public boolean released() {
        return closed;
    }

    @Override
    public int token() {
        return stag;
    }

    @Override
    public long remoteBase() {
        return 0; // tagged offsets are zero-based within the bound span, as for soft regions
    }

    @Override
    public boolean isBound() {
        Binding b = binding;
        return b != null && b.live();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        revoke();
        table.remove(this);
    }
}
