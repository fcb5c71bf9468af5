package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.spi.ProviderRegion;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/** A soft registration: the buffer, its rights, and its STag in the device's table while valid. */
final class SoftRegion implements ProviderRegion, SoftStag {
    private final RegionTable table;
    private final ByteBuffer bytes;
    private final Set<Access> access;
    private final int token;
    private volatile boolean valid = true;

    SoftRegion(RegionTable table, ByteBuffer bytes, Set<Access> access, int token) {
        this.table = table;
        this.bytes = bytes;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access.isEmpty()
                ? EnumSet.noneOf(Access.class) : access));
        this.token = token;
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

    /** Invalidates the region; the windows bound over it grant nothing from then on. */
    @Override
    public void invalidate() {
        if (valid) {
            valid = false;
            table.remove(this);
        }
    }
}
