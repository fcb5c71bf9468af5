package dev.rdmafutures;

/**
 * The allocation-free form of a {@link SharedReceiveQueue} receive, as {@link CompletionCallback} is for a
 * connection's operations: called exactly once, with the {@code context} given at the post, on the poller thread
 * that took the Send (or the runtime's completion executor).
 */
public interface SharedReceiveCallback {
    /** A Send of {@code bytes} from {@code connection}'s peer filled the receive. */
    void received(long context, RdmaConnection connection, int bytes);

    /**
     * The receive failed; {@link Status#CANCELED} when the queue was closed with it posted, or when the connection that
     * took a Send into it ended, or was never established, before reporting it.
     */
    void failed(long context, RdmaException error);

    /**
     * A Send with Invalidate filled the receive and invalidated the local token {@code invalidatedToken}. By default
     * reported as {@link #received}.
     */
    default void receivedWithInvalidate(long context, RdmaConnection connection, int bytes, int invalidatedToken) {
        received(context, connection, bytes);
    }
}
