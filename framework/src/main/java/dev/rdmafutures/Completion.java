package dev.rdmafutures;

import java.util.OptionalInt;

/**
 * A completed data-path operation.
 *
 * @param bytes            bytes transferred: read, written, sent, or received into a posted receive
 * @param invalidatedToken for a receive that a Send-with-Invalidate completed: the local token it invalidated
 */
public record Completion(int bytes, OptionalInt invalidatedToken) {
    /** A completion that invalidated nothing. */
    public static Completion of(int bytes) {
        return new Completion(bytes, OptionalInt.empty());
    }
}
