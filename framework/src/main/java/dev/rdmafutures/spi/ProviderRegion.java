package dev.rdmafutures.spi;

import dev.rdmafutures.Access;
import java.nio.ByteBuffer;
import java.util.Set;

/** A provider's registration of a buffer. Thread-safe. */
public interface ProviderRegion {
    /** The token peers address it with; never 0. */
    int token();

    /** The registered bytes: a view with position 0 and limit {@link #length()}; callers must not move it. */
    ByteBuffer bytes();

    /**
     * The address a peer names the first registered byte with: 0 for zero-based tagged offsets (iWARP in software),
     * the virtual address for verbs memory regions.
     */
    long remoteBase();

    /** The registered length. */
    int length();

    /** The granted access. */
    Set<Access> access();

    /** Whether the token still grants access. */
    boolean isValid();

    /** Revokes the token at once; idempotent. */
    void invalidate();
}
