package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderFastRegion;
import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.WorkRequest;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A soft fast-register region slot: an STag index of its own in the device's table. {@link #prepare} makes a
 * {@link SoftRegion} with that index and the next key, not yet valid; the FAST_REGISTER request carrying it puts it in
 * force when it reaches the head of its send queue, revoking the slot's earlier registration, and the table then
 * holds that region at the slot's index, so peers reach it as any region. Once it is invalidated (locally, by the
 * peer's Send with Invalidate, by a READ with LOCAL_INVALIDATE, or by the next registration) the slot holds the index
 * again. Changes are serialized on the slot. Thread-safe.
 */
final class SoftFastRegion implements ProviderFastRegion, SoftStag {
    private final RegionTable table;
    private final int index;
    /** The key of the last STag handed out: the next registration takes the one after it. Guarded by this. */
    private int key;
    private volatile SoftRegion current;
    private volatile int lastToken;
    private volatile boolean closed;

    /** A slot owning {@code stag}'s index; its first registration takes the key after {@code stag}'s. */
    SoftFastRegion(RegionTable table, int stag) {
        this.table = table;
        this.index = SoftStag.indexOf(stag);
        this.key = stag & 0xFF;
    }

    @Override
    public synchronized ProviderRegion prepare(ByteBuffer bytes, Set<Access> access) {
        if (closed) {
            throw closedError();
        }
        key = (key + 1) & 0xFF;
        return SoftRegion.pending(table, bytes, access, index << 8 | key, this);
    }

    /**
     * Carries out a FAST_REGISTER or INVALIDATE_WINDOW request on this slot that reached the head of its send
     * queue: null once it is in force, else why it failed (the slot is then unchanged).
     */
    static RdmaException perform(WorkRequest request) {
        SoftFastRegion slot = (SoftFastRegion) request.window();
        return request.kind() == WorkRequest.Kind.FAST_REGISTER
                ? slot.register((SoftRegion) request.region(0)) : slot.invalidate();
    }

    private synchronized RdmaException register(SoftRegion next) {
        if (closed) {
            return closedError();
        }
        revokeCurrent();
        next.activate();
        table.install(next, this);
        current = next;
        lastToken = next.token();
        return null;
    }

    private synchronized RdmaException invalidate() {
        if (closed) {
            return closedError();
        }
        revokeCurrent();
        return null;
    }

    private void revokeCurrent() {
        SoftRegion region = current;
        current = null;
        if (region != null) {
            region.invalidate(); // gives the index back to this slot
        }
    }

    private static RdmaException closedError() {
        return new RdmaException(Status.INVALID_DEVICE_STATE, "the fast-register region was closed");
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
        return lastToken;
    }

    @Override
    public long remoteBase() {
        return 0; // tagged offsets are zero-based, as for every soft region
    }

    @Override
    public boolean isBound() {
        SoftRegion region = current;
        return region != null && region.isValid();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        revokeCurrent();
        table.remove(this);
    }
}
