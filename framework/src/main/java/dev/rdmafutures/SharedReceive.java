package dev.rdmafutures;

import java.util.OptionalInt;

/**
 * A receive of a {@link SharedReceiveQueue} that a Send completed.
 *
 * @param connection       the connection whose peer sent the message
 * @param bytes            the size of the Send
 * @param invalidatedToken for a Send with Invalidate: the local token it invalidated
 */
public record SharedReceive(RdmaConnection connection, int bytes, OptionalInt invalidatedToken) {
}
