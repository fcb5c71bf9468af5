package dev.rdmafutures;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A registered buffer (NDK's {@code NDK_MR}): local operations use it directly, peers reach it through its token
 * as far as its {@link Access} allows. From {@link RdmaRuntime#register(ByteBuffer, Access...)}. As a
 * {@link LocalBuffer} it is the whole region; {@link #slice(int, int)} gives a part of it.
 */
public non-sealed interface MemoryRegion extends LocalBuffer, AutoCloseable {
    /** A view of the registered bytes: position 0, limit {@link #length()}. Shares content with the original. */
    ByteBuffer buffer();

    /** The registered length. */
    int length();

    /** The granted access. */
    Set<Access> access();

    /** The token peers use; it changes if the region is invalidated and never comes back. */
    int token();

    /**
     * {@code length} bytes from {@code offset}, as the local side of an operation.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for a negative offset or length,
     *                       {@link Status#ACCESS_VIOLATION} for a span outside the region
     */
    default RegionSlice slice(int offset, int length) {
        return new RegionSlice(this, offset, length);
    }

    /** The whole region as a peer addresses it. */
    RemoteBuffer remote();

    /** Whether the token is still valid (not deregistered, not invalidated). */
    boolean isValid();

    /**
     * Revokes the token at once: from now on peers fail with an access error and local operations with
     * {@link Status#ACCESS_VIOLATION}; operations already under way finish. Idempotent.
     */
    void deregister();

    /** Same as {@link #deregister()}. */
    @Override
    void close();
}
