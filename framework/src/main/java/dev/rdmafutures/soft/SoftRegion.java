package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.spi.ProviderRegion;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A soft registration: the buffer, its rights, and its STag in the device's table while valid. One made in a
 * {@link SoftFastRegion} slot is pending until its FAST_REGISTER request puts it in force, and gives the slot its
 * index back when it ends.
 */
final class SoftRegion implements ProviderRegion, SoftStag {
    private final RegionTable table;
    private final ByteBuffer bytes;
    private final Set<Access> access;
    private final int token;
    /** The slot it was made in, or null for a region of its own. */
    private final SoftFastRegion slot;
    private volatile boolean valid;

    SoftRegion(RegionTable table, ByteBuffer bytes, Set<Access> access, int token) {
        this(table, bytes, access, token, null, true);
    }

    private SoftRegion(RegionTable table, ByteBuffer bytes, Set<Access> access, int token, SoftFastRegion slot,
                       boolean valid) {
        this.table = table;
        this.bytes = bytes;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access.isEmpty()
                ? EnumSet.noneOf(Access.class) : access));
        this.token = token;
        this.slot = slot;
        this.valid = valid;
    }

    /** A registration in {@code slot} under {@code token}, not valid until {@link #activate()}. */
    static SoftRegion pending(RegionTable table, ByteBuffer bytes, Set<Access> access, int token,
                              SoftFastRegion slot) {
        return new SoftRegion(table, bytes, access, token, slot, false);
    }

    /** Its FAST_REGISTER request took effect; the slot installs it in the table. */
    void activate() {
        valid = true;
    }

    @Override
    public long remoteBase() {
        return 0; // DDP tagged offsets are zero-based
    }

    @Override
    public int token() {
        return token;
    }

    @Override
    public int index() {
        return SoftStag.indexOf(token);
    }

    @Override
    public boolean released() {
        return !valid;
    }

    @Override
    public ByteBuffer bytes() {
        return bytes.duplicate();
    }

    /** Copies {@code length} bytes from {@code offset} to {@code into}'s position, advancing it; the region's
     * buffer is not moved. */
    void copyTo(int offset, ByteBuffer into, int length) {
        int at = into.position();
        into.put(at, bytes, offset, length).position(at + length);
    }

    @Override
    public int length() {
        return bytes.capacity();
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    boolean allows(Access right) {
        return access.contains(right);
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    /**
     * Invalidates the region; the windows bound over it grant nothing from then on. A pending registration is
     * invalid already: its request, if it still comes, puts it in force.
     */
    @Override
    public synchronized void invalidate() {
        if (!valid) {
            return;
        }
        valid = false;
        table.retire(token());
        if (slot != null) {
            table.uninstall(this, slot);
        } else {
            table.remove(this);
        }
    }
}
