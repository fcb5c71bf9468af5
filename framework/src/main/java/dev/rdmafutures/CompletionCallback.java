package dev.rdmafutures;

/**
 * The allocation-free alternative to futures, NDK's {@code RequestCompletion}: the runtime calls it exactly once per
 * operation whose post returned {@link Status#SUCCESS}, with the {@code context} given at the post, on the poller
 * thread (or the runtime's completion executor), and never for a post that returned its refusal. Keep it short and
 * non-blocking; posting the next operation from it is the intended use: the operation's queue slot is free before
 * the callback runs.
 *
 * <p>Steady state allocates nothing when operations are posted from the poller thread (from this callback, or on a
 * runtime the application drives with {@code pollerThreads(0)}) and no completion executor is set: the runtime
 * recycles its per-operation state once the callback returns. Posting from another thread hands the operation over
 * through the poller's command queue, which costs one queue node.
 */
public interface CompletionCallback {
    /** The operation moved {@code bytes} (for a receive: the size of the Send it took). */
    void completed(long context, int bytes);

    /**
     * The operation failed; {@link Status#CANCELED} when the connection ended before it ran. {@code error} is
     * created for this failure; keep it if you like.
     */
    void failed(long context, RdmaException error);

    /**
     * A receive that a Send with Invalidate completed; the local region with {@code invalidatedToken} is now
     * invalid. By default reported as {@link #completed}.
     */
    default void completedWithInvalidate(long context, int bytes, int invalidatedToken) {
        completed(context, bytes);
    }
}
