package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaRuntime;
import java.nio.ByteBuffer;

/**
 * What a hostile-peer test exposes and watches: a writable region of {@value #SIZE} bytes in the middle of a larger
 * buffer, between two guard pages no access may reach, and a read-only region; both filled with known patterns, so a
 * test can check that the guards and the read-only bytes never change.
 */
final class GuardedMemory {
    static final int GUARD = 4096;
    static final int SIZE = 4096;

    private final ByteBuffer writableBacking = ByteBuffer.allocateDirect(GUARD + SIZE + GUARD);
    private final ByteBuffer readOnlyBacking = ByteBuffer.allocateDirect(SIZE);
    private final byte[] guardsBefore;
    private final byte[] readOnlyBefore;
    /** Every access right, over the middle of the writable buffer. */
    final MemoryRegion writable;
    /** REMOTE_READ only. */
    final MemoryRegion readOnly;

    GuardedMemory(RdmaRuntime runtime) {
        for (int i = 0; i < writableBacking.capacity(); i++) {
            writableBacking.put(i, (byte) (i * 7));
        }
        for (int i = 0; i < readOnlyBacking.capacity(); i++) {
            readOnlyBacking.put(i, (byte) (i * 13));
        }
        guardsBefore = guards();
        readOnlyBefore = readOnlyBytes();
        writable = runtime.register(writableBacking.duplicate().position(GUARD).limit(GUARD + SIZE), Access.values());
        readOnly = runtime.register(readOnlyBacking.duplicate(), Access.REMOTE_READ);
    }

    /** The guard pages' bytes now. */
    byte[] guards() {
        byte[] g = new byte[2 * GUARD];
        writableBacking.get(0, g, 0, GUARD);
        writableBacking.get(GUARD + SIZE, g, GUARD, GUARD);
        return g;
    }

    byte[] guardsBefore() {
        return guardsBefore.clone();
    }

    /** The read-only region's bytes now. */
    byte[] readOnlyBytes() {
        return bytes(readOnlyBacking);
    }

    byte[] readOnlyBefore() {
        return readOnlyBefore.clone();
    }

    /** All of {@code b}'s bytes, whatever its position and limit. */
    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.capacity()];
        b.get(0, out);
        return out;
    }
}
