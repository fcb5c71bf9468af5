package dev.rdmafutures;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * An established, reliable connection: one queue pair and its completions, driven by the runtime's poller (NDK's
 * {@code NDK_QP} bound to a connector).
 *
 * <p>Every post takes a slot of the initiator queue (READ, WRITE, SEND, windows) or of the receive queue (RECEIVE)
 * until its outcome is reported. Where this page says a post "fails with {@link Status#INSUFFICIENT_RESOURCES} at
 * once" for a full queue, that is the runtime's default {@link Admission#failFast()}; under
 * {@link Admission#waitForSlot} the operation waits for a slot instead, in arrival order, and fails with that
 * status through its future or callback only when the wait reaches its bound (a {@link #batch()} never waits).
 *
 * <h2>Refusals: what a post checks before anything is taken</h2>
 * Each verb (read, write, send, send-and-invalidate, receive) has one method per completion style, and each takes
 * its local side as a {@link LocalBuffer}: a region, a {@link RegionSlice} or a {@link ScatterGatherList}.
 * A post is checked whole before it takes a slot or holds a region; a refused post takes nothing, posts nothing and
 * leaves the connection up. The future form returns a future that has already failed with the status below (it
 * never throws an {@link RdmaException}); the callback form returns that status instead of {@link Status#SUCCESS},
 * builds no exception and never calls the callback; a {@link Batch} fails that operation's future and keeps the
 * others. A span outside its region is refused earlier still, when the slice or list is made.
 * <table>
 *   <caption>Statuses of a refused post</caption>
 *   <tr><th>argument or state</th><th>status</th></tr>
 *   <tr><td>a null local buffer, remote buffer, flags or callback</td>
 *       <td>{@link NullPointerException}, thrown by every form</td></tr>
 *   <tr><td>the runtime is closed</td><td>{@link Status#CONNECTION_INVALID}</td></tr>
 *   <tr><td>{@code remoteOffset} and the local side's length reaching outside {@code remote} (READ, WRITE)</td>
 *       <td>{@link Status#REMOTE_RESOURCES}</td></tr>
 *   <tr><td>a local region of another runtime</td><td>{@link Status#ACCESS_VIOLATION}</td></tr>
 *   <tr><td>a negative offset or length (thrown by {@link RegionSlice} and {@link ScatterGatherList#add})</td>
 *       <td>{@link Status#INVALID_PARAMETER}</td></tr>
 *   <tr><td>a span outside its region (thrown by {@link RegionSlice} and {@link ScatterGatherList#add})</td>
 *       <td>{@link Status#ACCESS_VIOLATION}</td></tr>
 *   <tr><td>a deregistered or invalidated local region</td><td>{@link Status#ACCESS_VIOLATION}</td></tr>
 *   <tr><td>no {@link Access#LOCAL_WRITE} where data is placed (READ, RECEIVE)</td>
 *       <td>{@link Status#ACCESS_VIOLATION}</td></tr>
 *   <tr><td>more segments than {@link QueueDepths#initiatorSge()} or {@link QueueDepths#receiveSge()}</td>
 *       <td>{@link Status#INVALID_PARAMETER}</td></tr>
 *   <tr><td>the connection is not connected (never was, disconnecting, or ended)</td>
 *       <td>{@link Status#CONNECTION_INVALID}</td></tr>
 *   <tr><td>a receive on a connection that takes its receives from a {@link SharedReceiveQueue}</td>
 *       <td>{@link Status#INVALID_DEVICE_STATE}</td></tr>
 *   <tr><td>Send with Invalidate where {@link AdapterInfo#isRemoteInvalidateSupported()} is false</td>
 *       <td>{@link Status#NOT_SUPPORTED}</td></tr>
 *   <tr><td>a READ with {@link OperationFlags#READ_FENCE} where {@link AdapterInfo#isReadFenceOnReadSupported()} is
 *       false</td><td>{@link Status#NOT_SUPPORTED}</td></tr>
 *   <tr><td>no free slot in the queue the operation goes to ({@link Admission#failFast()})</td>
 *       <td>{@link Status#INSUFFICIENT_RESOURCES}</td></tr>
 * </table>
 *
 * <h2>Failures the peer decides</h2>
 * What only the peer can check arrives through the future or callback, never as a throw: a token it does not know,
 * has revoked, or that lacks the right (a window's outside its bound span or on another connection included) fails
 * the operation with {@link Status#ACCESS_VIOLATION} (or {@link Status#REMOTE_RESOURCES} where the transport tells a
 * bounds fault apart), and a Send larger than the receive that takes it fails the Send. Either way the peer
 * terminates the connection, as iWARP and verbs do: both ends report {@link DisconnectReason#PROTOCOL_ERROR} through
 * {@link #disconnected()} (a verbs peer may see {@link DisconnectReason#PEER_DISCONNECTED}), each side's
 * {@code onDisconnect} callback runs once, and every other outstanding operation fails {@link Status#CANCELED}.
 */
public interface RdmaConnection extends AutoCloseable {
    /** The negotiated read limits and the peer's private data ({@code NdkGetConnectionData}). */
    ConnectionData connectionData();

    /** The connection's counters now: its operations, and the slots of its queues in use. */
    ConnectionMetrics metrics();

    /** The queue depths granted: what was asked for at connect or accept, capped to the adapter's maxima. */
    QueueDepths queueDepths();

    /**
     * How many more READs, WRITEs and SENDs may be posted now: the initiator depth less those posted and not yet
     * reported. An operation's slot is free again before its callback runs or its future completes, so the
     * callback (or a stage of the future) may post the next one into it. A snapshot; other threads may take or
     * free slots at any time.
     */
    int availableInitiatorSlots();

    /** How many more receives may be posted now: the receive depth less those posted and not yet reported. */
    int availableReceiveSlots();

    /** This side's address. */
    InetSocketAddress localAddress();

    /** The peer's address. */
    InetSocketAddress remoteAddress();

    /** Whether the connection is still up. */
    boolean isConnected();

    /**
     * RDMA Read (NdkRead): copies the peer's {@code remote} buffer from {@code remoteOffset} into {@code local}, as
     * many bytes as {@code local} holds, scattered over its segments in order. Every local segment needs
     * {@link Access#LOCAL_WRITE}; {@link OperationFlags#RDMA_READ_LOCAL_INVALIDATE} invalidates the first segment's
     * region. Reads beyond the negotiated outbound read limit wait, in order, within the initiator depth. The future
     * completes with the bytes read, or fails with a refusal (see the table above), with what the peer decides, or
     * with {@link Status#CANCELED} when the connection ends first.
     */
    CompletableFuture<Completion> read(LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                                       OperationFlags flags);

    /**
     * {@link #read(LocalBuffer, RemoteBuffer, long, OperationFlags) RDMA Read} reporting to {@code callback} with
     * {@code context} instead of a future: the allocation-free path ({@link CompletionCallback}), NDK's
     * {@code NdkRead} with its {@code RequestCompletion}.
     *
     * @return {@link Status#SUCCESS} when the read was posted (or, under {@link Admission#waitForSlot}, waits for a
     *         slot): the callback then runs exactly once. Any other status is the refusal of the table above:
     *         nothing was posted, the callback never runs, and nothing was allocated to say so.
     */
    Status read(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags,
                CompletionCallback callback, long context);

    /**
     * RDMA Write: places {@code local}, gathered from its segments in order, into the peer's {@code remote} buffer
     * from {@code remoteOffset}. Completes when the data is handed to the transport (iWARP has no remote
     * acknowledgement); a token the peer refuses terminates the connection. Outcomes as for {@link #read}.
     */
    CompletableFuture<Completion> write(LocalBuffer local, RemoteBuffer remote, long remoteOffset,
                                        OperationFlags flags);

    /** RDMA Write reporting to {@code callback}; returns as the callback form of {@link #read} does. */
    Status write(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags,
                 CompletionCallback callback, long context);

    /**
     * Send: one message gathered from {@code local}'s segments in order; the peer's oldest posted receive takes it.
     * Completes when handed to the transport. The provider's policy when the peer has no receive posted is in its
     * documentation ({@link AdapterInfo#sendWaitsForPeerReceive()}).
     */
    CompletableFuture<Completion> send(LocalBuffer local, OperationFlags flags);

    /** Send reporting to {@code callback}; returns as the callback form of {@link #read} does. */
    Status send(LocalBuffer local, OperationFlags flags, CompletionCallback callback, long context);

    /**
     * Send with Invalidate: as {@link #send}, and the peer's region or window with {@code remoteToken} is
     * invalidated when the message arrives. Refused with {@link Status#NOT_SUPPORTED} where
     * {@link AdapterInfo#isRemoteInvalidateSupported()} is false.
     */
    CompletableFuture<Completion> sendAndInvalidate(LocalBuffer local, int remoteToken, OperationFlags flags);

    /** Send with Invalidate reporting to {@code callback}; returns as the callback form of {@link #read} does. */
    Status sendAndInvalidate(LocalBuffer local, int remoteToken, OperationFlags flags, CompletionCallback callback,
                             long context);

    /**
     * Posts a receive ({@link Access#LOCAL_WRITE} needed on every segment): it completes with the size of the next
     * Send the peer makes, scattered over {@code local}'s segments in order; receives are taken in the order they
     * were posted. A Send larger than the receive terminates the connection. Refused with
     * {@link Status#INVALID_DEVICE_STATE} on a connection that takes its receives from a {@link SharedReceiveQueue}.
     */
    CompletableFuture<Completion> receive(LocalBuffer local);

    /** Posts a receive reporting to {@code callback}; returns as the callback form of {@link #read} does. */
    Status receive(LocalBuffer local, CompletionCallback callback, long context);

    /**
     * Binds {@code window} over {@code length} bytes of {@code region} from {@code offset} with {@code rights}
     * (NdkBind): posted on this connection's initiator queue, taking a slot until done. The future gives what the
     * peer addresses, with the window's new token; only this connection's peer can use it. The window is
     * zero-based: offset 0 of the returned buffer is byte {@code offset} of {@code region}. Fails with
     * {@link Status#NOT_SUPPORTED} where {@link AdapterInfo#isMemoryWindowSupported()} is false,
     * {@link Status#INVALID_PARAMETER} for rights other than REMOTE_READ/REMOTE_WRITE or a window of another runtime,
     * {@link Status#ACCESS_VIOLATION} for rights the region lacks or a span outside it,
     * {@link Status#INVALID_DEVICE_STATE} for a closed window; otherwise as for {@link #read}.
     */
    CompletableFuture<RemoteBuffer> bind(MemoryWindow window, MemoryRegion region, int offset, int length,
                                         Access... rights);

    /**
     * Revokes {@code window}'s token (NdkInvalidate), posted on this connection's initiator queue: once the future
     * completes the peer is refused. The window can be bound again. Errors as for {@link #bind}.
     */
    CompletableFuture<Void> invalidate(MemoryWindow window);

    /**
     * Registers {@code bytes}, from position to limit, in {@code slot} with {@code access} (NdkFastRegister): posted
     * on this connection's initiator queue, taking a slot until done; when it reaches the head of the queue it
     * revokes the slot's earlier registration and the future gives the new {@link MemoryRegion}, with a new token.
     * Fails with {@link Status#NOT_SUPPORTED} where {@link AdapterInfo#isFastRegisterSupported()} is false,
     * {@link Status#INVALID_PARAMETER} for an empty buffer, a read-only one with write rights, or a slot of another
     * runtime, {@link Status#INVALID_DEVICE_STATE} for a closed slot; otherwise as for {@link #read}.
     */
    CompletableFuture<MemoryRegion> fastRegister(FastRegion slot, ByteBuffer bytes, Access... access);

    /**
     * Revokes the registration in force in {@code slot} (NdkInvalidate), posted on this connection's initiator
     * queue: once the future completes its region is invalid. Errors as for {@link #fastRegister}.
     */
    CompletableFuture<Void> invalidate(FastRegion slot);

    /**
     * A batch of operations to post at once. Each takes its slot when added; one added beyond its queue's depth
     * fails with {@link Status#INSUFFICIENT_RESOURCES} and the rest of the batch is unaffected.
     */
    Batch batch();

    /**
     * Disconnects gracefully: outstanding operations on both sides are flushed with {@link Status#CANCELED}. The
     * future completes when the peer has acknowledged or the runtime's disconnect timeout passed (then the
     * transport is closed abortively). Idempotent: later calls return the same future.
     */
    CompletableFuture<Void> disconnect();

    /** A future of why the connection ended; it completes exactly once. */
    CompletableFuture<DisconnectReason> disconnected();

    /** Starts {@link #disconnect()} without waiting. */
    @Override
    void close();
}
