package dev.rdmafutures;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Operations collected on one connection and posted together with {@link #post()}: one hand-off to the poller and
 * one transmission burst (doorbell batching, NDK's DEFER). Each operation takes its initiator slot when added (one
 * beyond the depth fails with {@link Status#INSUFFICIENT_RESOURCES}) and holds it until reported, so post what you
 * add. Not thread-safe; single use.
 */
public interface Batch {
    /** Adds an RDMA Read; see {@link RdmaConnection#read}. */
    Batch read(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
               OperationFlag... flags);

    /** Adds an RDMA Write; see {@link RdmaConnection#write}. */
    Batch write(MemoryRegion local, int localOffset, RemoteBuffer remote, long remoteOffset, int length,
                OperationFlag... flags);

    /** Adds a Send; see {@link RdmaConnection#send}. */
    Batch send(MemoryRegion local, int offset, int length, OperationFlag... flags);

    /** Adds a scatter-gather RDMA Read; see {@link RdmaConnection#read(ScatterGatherList, RemoteBuffer, long,
     * OperationFlag...)}. */
    Batch read(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, OperationFlag... flags);

    /** Adds a gathering RDMA Write; see {@link RdmaConnection#write(ScatterGatherList, RemoteBuffer, long,
     * OperationFlag...)}. */
    Batch write(ScatterGatherList local, RemoteBuffer remote, long remoteOffset, OperationFlag... flags);

    /** Adds a gathering Send; see {@link RdmaConnection#send(ScatterGatherList, OperationFlag...)}. */
    Batch send(ScatterGatherList local, OperationFlag... flags);

    /** Posts everything added, in order; the futures are in the order the operations were added. */
    List<CompletableFuture<Completion>> post();
}
