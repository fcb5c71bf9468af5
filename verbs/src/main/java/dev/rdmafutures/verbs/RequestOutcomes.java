package dev.rdmafutures.verbs;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.WorkRequest;
import java.util.ArrayDeque;

/**
 * How the requests of one {@link VerbsQueuePair} end: the send-queue requests in posting order ({@link PostedSends}),
 * the receives of its own receive queue in order (or a shared queue's by slot), successful silent requests held until
 * a later one proves them done, and the cause every request not executed fails with: the remote error that broke the
 * connection, the local failure that ended it, or its end. A flush seen while the connection still looks established
 * waits for that cause, which the device's event or the CM's DISCONNECTED may bring only after the flush. Requests
 * are added when they join the duty cycle's chain: those the device refuses are taken back, and those the
 * connection's end finds not yet posted end as {@link #settleRemaining()} ends the flushed ones. Poller thread only.
 */
final class RequestOutcomes {
    private final VerbsConnection connection;
    private final VerbsSharedReceiveQueue sharedQueue;
    private final ConnectionEvents connectionEvents;
    private final VerbsWindows windows;
    private final int invalidatedFlags;
    private final PostedSends sends;
    private final ArrayDeque<WorkRequest> receiveQueue = new ArrayDeque<>();
    private final ArrayDeque<WorkRequest> heldSilent = new ArrayDeque<>();
    /** Requests flushed while the connection still looked established, in the order their queues flushed them. */
    private final ArrayDeque<WorkRequest> flushedEarly = new ArrayDeque<>();
    /** The remote error that broke the connection: requests flushed after it fail with its status, as on iWARP. */
    private RdmaException terminatedBy;
    /** The local failure (port, QP, CQ, device) that ended the connection: requests flushed after it fail with it. */
    private RdmaException failedBy;
    /** Whether a request of this QP failed other than flushed: a cause this side saw, whoever made it. */
    private boolean failedUnflushed;
    /**
     * Shared receives the QP took before its connection was established, oldest first. A verbs QP receives from RTR
     * on (an iWARP connect's once the kernel's CM has the peer's reply, an accept's from {@code rdma_accept}), before
     * this side reports the connection; soft takes none then. They are reported once it is established, so a caller
     * never hears of a connection it was not handed, or fail when it never is. Null until one is held.
     */
    private ArrayDeque<HeldReceive> heldUntilEstablished;

    /** A shared receive's outcome, held until its connection is established. */
    private record HeldReceive(WorkRequest request, int status, int vendorError, int bytes, int flags, int token) {
    }

    RequestOutcomes(VerbsConnection connection, VerbsSharedReceiveQueue sharedQueue,
                    ConnectionEvents connectionEvents, VerbsDevice device, VerbsWindows windows, int initiatorDepth) {
        this.connection = connection;
        this.windows = windows;
        this.invalidatedFlags = device.invalidatedFlags();
        this.sharedQueue = sharedQueue;
        this.connectionEvents = connectionEvents;
        this.sends = new PostedSends(initiatorDepth);
    }

    /** The work-request id of a send-queue request posted with {@code sequence}; {@link #addSend} follows. */
    long nextSendId(int sequence) {
        return sends.nextId(sequence);
    }

    void addSend(WorkRequest request, int sequence) {
        sends.add(request, sequence, 0);
    }

    /** A window bind or invalidation, posted with {@code sequence}, giving or revoking {@code token}. */
    void addWindowRequest(WorkRequest request, int sequence, int token) {
        sends.add(request, sequence, token);
    }

    void addReceive(WorkRequest request) {
        receiveQueue.add(request);
    }

    /** Takes back the {@code count} newest send-queue requests, which the device refused: oldest first. */
    WorkRequest[] removeNewestSends(int count) {
        return sends.removeNewest(count);
    }

    /** Takes back the {@code count} newest receives of the own receive queue, which the device refused: oldest first. */
    WorkRequest[] removeNewestReceives(int count) {
        WorkRequest[] newest = new WorkRequest[count];
        for (int i = count - 1; i >= 0; i--) {
            newest[i] = receiveQueue.pollLast();
        }
        return newest;
    }

    /** A send-queue completion: reports the oldest requests done, in posting order. */
    void onSendCompletion(long wrId, boolean part, int status, int vendorError) {
        if (!sends.complete(wrId, part, status, vendorError)) {
            failedUnflushed |= isUnflushedFailure(status);
            return; // a part of a READ whose post failed half-way: the READ failed then
        }
        while (sends.oldestDone()) {
            int oldestStatus = sends.oldestStatus();
            int oldestVendorError = sends.oldestVendorError();
            int token = sends.oldestToken();
            WorkRequest request = sends.poll();
            if (request.window() != null) {
                releaseSilent();
                windowDone(request, token, oldestStatus, oldestVendorError);
            } else if (oldestStatus != VerbsErrors.WC_SUCCESS) {
                releaseSilent();
                fail(request, oldestStatus, oldestVendorError, false);
            } else if (request.has(WorkRequest.SILENT_SUCCESS)) {
                heldSilent.add(request);
            } else {
                releaseSilent();
                request.completion().completed(request.length());
            }
        }
    }

    /** A receive completion: of the next receive of its own queue, or of the shared queue's {@code slot}. */
    void onReceiveCompletion(int slot, int status, int vendorError, int bytes, int flags, int token) {
        WorkRequest request = sharedQueue != null ? sharedQueue.take(slot) : receiveQueue.poll();
        if (request == null) {
            failedUnflushed |= isUnflushedFailure(status);
            return; // the shared receive queue was closed and failed it already
        }
        if (sharedQueue != null) {
            request.completion().arrivedOn(connectionEvents); // taken: the core counts it posted no more
            if (connection.isEstablishing()) {
                failedUnflushed |= isUnflushedFailure(status); // what a peer is blamed for depends on it
                if (heldUntilEstablished == null) {
                    heldUntilEstablished = new ArrayDeque<>(2);
                }
                heldUntilEstablished.add(new HeldReceive(request, status, vendorError, bytes, flags, token));
                return;
            }
        }
        report(request, status, vendorError, bytes, flags, token);
    }

    /** The connection is established: the shared receives taken before it are reported on it, oldest first. */
    void reportHeldReceives() {
        HeldReceive held;
        while (heldUntilEstablished != null && (held = heldUntilEstablished.poll()) != null) {
            report(held.request(), held.status(), held.vendorError(), held.bytes(), held.flags(), held.token());
        }
    }

    /**
     * The QP was released: the shared receives it took and no connection reported fail, naming none, oldest first:
     * those held while the connection was being established (it never was), then {@code slot}'s (or none: -1), which
     * the CQ's drain after the QP's destruction brought; a shared queue's receive has no other way back to its caller.
     */
    void failUnreported(int slot) {
        HeldReceive held;
        while (heldUntilEstablished != null && (held = heldUntilEstablished.poll()) != null) {
            held.request().completion().failed(unreported());
        }
        WorkRequest request = slot >= 0 ? sharedQueue.take(slot) : null;
        if (request != null) {
            request.completion().failed(unreported());
        }
    }

    /** Why a shared receive this QP took is not reported: its connection ended, or was never established. */
    private RdmaException unreported() {
        return new RdmaException(Status.CANCELED, "a message from " + connection.remoteAddress() + " arrived in this"
                + " receive " + (connection.isEstablishing() ? "while the connection was being established, and it"
                + " never was" : "as its connection ended"));
    }

    private void report(WorkRequest request, int status, int vendorError, int bytes, int flags, int token) {
        if (status != VerbsErrors.WC_SUCCESS) {
            fail(request, status, vendorError, true);
            return;
        }
        if ((flags & invalidatedFlags) != 0) {
            if (windows != null) {
                windows.invalidatedRemotely(token);
            }
            request.completion().completedWithInvalidate(bytes, token);
        } else {
            request.completion().completed(bytes);
        }
    }

    /** A window bind or invalidation ran: the window learns its outcome before the request reports it. */
    private void windowDone(WorkRequest request, int token, int status, int vendorError) {
        VerbsWindow window = (VerbsWindow) request.window();
        if (status != VerbsErrors.WC_SUCCESS) {
            window.failed();
            fail(request, status, vendorError, false);
        } else if (request.kind() == WorkRequest.Kind.BIND_WINDOW) {
            VerbsRegion region = (VerbsRegion) request.region(0);
            window.bound(token, region.address() + request.offset(0), connection);
            request.completion().windowBound(token);
            request.completion().completed(0);
        } else {
            window.invalidated(token);
            request.completion().completed(0);
        }
    }

    private void fail(WorkRequest request, int status, int vendorError, boolean receive) {
        boolean flushed = status == VerbsErrors.WC_WR_FLUSH_ERR;
        if (flushed && connection.isEstablished() && terminatedBy == null && failedBy == null) {
            if (flushedEarly.isEmpty()) {
                connection.onConnectionLost(new RdmaException(Status.CANCELED, "requests flushed"));
            }
            flushedEarly.add(request);
            return;
        }
        failedUnflushed |= isUnflushedFailure(status);
        if (flushed || !connection.isEstablished()) {
            request.completion().failed(flushed());
            return;
        }
        if (status == VerbsErrors.WC_LOC_QP_OP_ERR && !receive) {
            connection.onConnectionLost(VerbsErrors.completion(status, false, vendorError));
            request.completion().failed(flushed());
            return;
        }
        RdmaException error = VerbsErrors.completion(status, receive, vendorError);
        request.completion().failed(error);
        if (status == VerbsErrors.WC_RETRY_EXC_ERR || status == VerbsErrors.WC_RNR_RETRY_EXC_ERR) {
            connection.onPeerSilent(); // no remote error: the rest are canceled, as at soft's liveness deadline
            return;
        }
        terminatedBy = error;
        connection.onTerminated();
    }

    private static boolean isUnflushedFailure(int status) {
        return status != VerbsErrors.WC_SUCCESS && status != VerbsErrors.WC_WR_FLUSH_ERR;
    }

    private void releaseSilent() {
        WorkRequest silent;
        while ((silent = heldSilent.poll()) != null) {
            silent.completion().completed(silent.length());
        }
    }

    /** Whether a remote error broke the connection. */
    boolean isTerminated() {
        return terminatedBy != null;
    }

    /**
     * Whether every request that failed was flushed and no local failure was recorded: if the QP broke anyway, the
     * device broke it for something the peer sent.
     */
    boolean onlyFlushed() {
        return !failedUnflushed && failedBy == null && terminatedBy == null;
    }

    /** Records the local failure that ends the connection, for every request not yet completed. */
    void recordFailure(RdmaException failure) {
        if (failedBy == null) {
            failedBy = failure;
        }
    }

    /** Why a request that never ran fails: the remote error or local failure that ended the connection, or its end. */
    RdmaException flushed() {
        if (terminatedBy != null) {
            return new RdmaException(terminatedBy.status(), "not executed: an earlier request on the connection to "
                    + connection.remoteAddress() + " failed (" + terminatedBy.getMessage() + ")");
        }
        if (failedBy != null) {
            return new RdmaException(failedBy.status(), "not executed: " + failedBy.getMessage());
        }
        return new RdmaException(Status.CANCELED, "the connection to " + connection.remoteAddress() + " ended");
    }

    /**
     * Once the CQ is drained at the connection's end: silent successes complete as done, then the early flushed
     * requests, the send-queue requests not done and the receives fail as {@link #flushed()}.
     */
    void settleRemaining() {
        RdmaException error = flushed();
        releaseSilent();
        WorkRequest next;
        while ((next = flushedEarly.poll()) != null) {
            next.completion().failed(error);
        }
        while (true) {
            boolean succeeded = sends.oldestSucceeded(); // done, behind one that was not
            int token = sends.oldestToken();
            next = sends.poll();
            if (next == null) {
                break;
            }
            if (next.window() != null) {
                windowDone(next, token, succeeded ? VerbsErrors.WC_SUCCESS : VerbsErrors.WC_WR_FLUSH_ERR, 0);
            } else if (succeeded) {
                next.completion().completed(next.length());
            } else {
                next.completion().failed(error);
            }
        }
        while ((next = receiveQueue.poll()) != null) {
            next.completion().failed(error);
        }
    }
}
