package dev.rdmafutures;

import java.util.concurrent.CompletableFuture;

/**
 * A receive queue shared by any number of connections of one runtime (NDK's {@code NdkCreateSrq}): a connection
 * created with {@code withSharedReceiveQueue(queue)} takes each Send its peer makes into the oldest receive posted
 * here, and posts no receives of its own. From {@link RdmaRuntime#sharedReceiveQueue(int, int)}.
 *
 * <p>Receives hold a slot from their post until their outcome is reported; a post beyond {@link #depth()} fails at
 * once with {@link Status#INSUFFICIENT_RESOURCES}, one with more than {@link #maxSge()} segments with
 * {@link Status#INVALID_PARAMETER}, nothing posted. A Send that finds the queue empty behaves as the provider
 * documents for an empty receive queue ({@link AdapterInfo#sendWaitsForPeerReceive()}).
 *
 * <p>A receive is reported on an established connection only: one that a connection took while it was being set up
 * (a verbs QP receives before this side reports it established, as a deferred connect's does before
 * {@code complete()}) is reported once the connection is established, and fails with {@link Status#CANCELED} when it
 * never is, as it does when its connection ends before its arrival is reported. Thread-safe.
 */
public interface SharedReceiveQueue extends AutoCloseable {
    /** How many receives may be outstanding at once. */
    int depth();

    /** The most segments one receive may carry. */
    int maxSge();

    /** How many more receives may be posted now: a snapshot. */
    int availableSlots();

    /** How many receives are posted and not yet taken by a Send: a snapshot. */
    int postedReceives();

    /** The queue's receives counted so far: posted, completed, failed by status, bytes received. */
    OperationMetrics metrics();

    /**
     * Posts a receive ({@link Access#LOCAL_WRITE} needed on every segment) that scatters the next Send over
     * {@code local} in order; see {@link RdmaConnection#receive(LocalBuffer)}. A refused receive fails the future.
     */
    CompletableFuture<SharedReceive> receive(LocalBuffer local);

    /**
     * Posts a receive reporting to {@code callback}, the allocation-free path.
     *
     * @return {@link Status#SUCCESS} when posted, the callback then runs once; otherwise the refusal (a full queue:
     *         {@link Status#INSUFFICIENT_RESOURCES}; too many segments: {@link Status#INVALID_PARAMETER}; a closed
     *         queue: {@link Status#INVALID_DEVICE_STATE}; a region as in {@link RdmaConnection}'s table), nothing
     *         posted and the callback never called
     */
    Status receive(LocalBuffer local, SharedReceiveCallback callback, long context);

    /**
     * Arms the limit notification (NDK's {@code NotifyThreshold}, verbs' {@code srq_limit}): the returned future
     * completes, once, with the number of receives still posted as soon as fewer than {@code threshold} remain. Arm
     * it again for the next notification; arming anew replaces an armed threshold, whose future then completes at
     * the same time as the new one.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} unless 1..{@link #depth()}
     */
    CompletableFuture<Integer> notifyBelow(int threshold);

    /**
     * Destroys the queue: no more receives may be posted, and those still posted fail with {@link Status#CANCELED}
     * (once connections whose disconnect was asked for have ended, since they may still take one).
     *
     * @throws RdmaException {@link Status#INVALID_DEVICE_STATE} while a connection still uses it: one that is
     *                       established and whose disconnect was not asked for
     */
    @Override
    void close();
}
