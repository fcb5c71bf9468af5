package dev.rdmafutures;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Operations collected on one connection and posted together with {@link #post()}: one hand-off to the poller and
 * one transmission burst (doorbell batching, NDK's DEFER). Every verb of {@link RdmaConnection} can be added, with the
 * same arguments as its future form. Each operation is checked and takes its slot when added (one beyond its queue's
 * depth fails with {@link Status#INSUFFICIENT_RESOURCES}, whatever the runtime's {@link Admission}); a refused
 * operation fails its own future and leaves the others. Slots are held until reported, so post what you add. Not
 * thread-safe; single use: adding after {@link #post()} throws {@link Status#INVALID_DEVICE_STATE}.
 */
public interface Batch {
    /** Adds an RDMA Read; see {@link RdmaConnection#read(LocalBuffer, RemoteBuffer, long, OperationFlags)}. */
    Batch read(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags);

    /** Adds an RDMA Write; see {@link RdmaConnection#write(LocalBuffer, RemoteBuffer, long, OperationFlags)}. */
    Batch write(LocalBuffer local, RemoteBuffer remote, long remoteOffset, OperationFlags flags);

    /** Adds a Send; see {@link RdmaConnection#send(LocalBuffer, OperationFlags)}. */
    Batch send(LocalBuffer local, OperationFlags flags);

    /** Adds a Send with Invalidate; see {@link RdmaConnection#sendAndInvalidate(LocalBuffer, int, OperationFlags)}. */
    Batch sendAndInvalidate(LocalBuffer local, int remoteToken, OperationFlags flags);

    /** Adds a receive; see {@link RdmaConnection#receive(LocalBuffer)}. */
    Batch receive(LocalBuffer local);

    /** Posts everything added, in order; the futures are in the order the operations were added. */
    List<CompletableFuture<Completion>> post();
}
