package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.impl.NatObject;
import dev.rdmafutures.verbs.NativeLayout.Completion;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A CQ that several queue pairs of one loop share ({@link CompletionQueues}), reporting to the loop's completion
 * channel. Its entries are reserved per queue pair for everything that QP can have outstanding, and once per shared
 * receive queue for all of that queue's receives, so it cannot overrun. Polled natively into one reused buffer of
 * {@code struct ibv_wc}, every field read from it (DiSNI's {@code IbvWC} keeps a failed completion's {@code qp_num}
 * from an earlier one). The polled batch and the position in it live here, so that a drain that starts inside a
 * completion's handling goes on where the outer one was. Poller thread only.
 */
final class CompletionQueue {
    /** Completions taken per poll; a poll that returns fewer has emptied the CQ. */
    static final int POLL_BATCH = 16;

    private final IbvCQ cq;
    private final long handle;
    private final int capacity;
    private final ByteBuffer batch = ByteBuffer.allocateDirect(POLL_BATCH * Completion.SIZE)
            .order(ByteOrder.nativeOrder());
    private final long batchAddress = MemoryUtils.getAddress(batch);
    private final SVCReqNotify notifyCall;
    /** Shared receive queues whose receives complete here, with how many of this CQ's queue pairs take them. */
    private final Map<VerbsSharedReceiveQueue, Integer> sharedQueues = new IdentityHashMap<>();
    private int reserved;
    private int queuePairs;
    private int batchSize;
    private int batchNext;
    private boolean armed;

    CompletionQueue(IbvContext context, IbvCompChannel channel, int capacity) throws IOException {
        this.cq = context.createCQ(channel, capacity, 0);
        this.handle = ((NatObject) cq).getObjId();
        this.capacity = capacity;
        this.notifyCall = cq.reqNotification(false);
    }

    long handle() {
        return handle;
    }

    int capacity() {
        return capacity;
    }

    /** The entries a queue pair needs here: its own, and its shared receive queue's unless already reserved. */
    int entriesFor(int ownEntries, VerbsSharedReceiveQueue sharedQueue) {
        return ownEntries + (sharedQueue == null || sharedQueues.containsKey(sharedQueue) ? 0 : sharedQueue.depth());
    }

    /** Whether {@code entries} more fit. */
    boolean fits(int entries) {
        return reserved + entries <= capacity;
    }

    void reserve(int ownEntries, VerbsSharedReceiveQueue sharedQueue) {
        reserved += entriesFor(ownEntries, sharedQueue);
        queuePairs++;
        if (sharedQueue != null) {
            sharedQueues.merge(sharedQueue, 1, Integer::sum);
        }
    }

    void unreserve(int ownEntries, VerbsSharedReceiveQueue sharedQueue) {
        reserved -= ownEntries;
        queuePairs--;
        if (sharedQueue != null && sharedQueues.merge(sharedQueue, -1, Integer::sum) == 0) {
            sharedQueues.remove(sharedQueue);
            reserved -= sharedQueue.depth();
        }
    }

    /** Whether no queue pair reports here any more. */
    boolean isUnused() {
        return queuePairs == 0;
    }

    /** Polls a new batch unless part of the last one is still to be handed over; the completions in hand. */
    int gather() {
        try {
            if (batchNext == batchSize) {
                poll();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return batchSize - batchNext;
    }

    /**
     * The next completion's offset in the batch, polling a new batch when this one is handed over; -1 when the CQ
     * is empty.
     */
    int next() throws IOException {
        if (batchNext == batchSize && poll() == 0) {
            return -1;
        }
        return batchNext++ * Completion.SIZE;
    }

    /**
     * Whether the batch handed over last was shorter than {@value #POLL_BATCH} and is all handed over: the CQ was
     * empty when it was polled.
     */
    boolean handedOverShortBatch() {
        return batchNext == batchSize && batchSize < POLL_BATCH;
    }

    private int poll() throws IOException {
        int polled = NativeVerbs.pollCq(handle, POLL_BATCH, batchAddress);
        if (polled < 0) {
            throw new IOException("ibv_poll_cq failed (errno " + -polled + ")");
        }
        batchSize = polled;
        batchNext = 0;
        return polled;
    }

    long wrId(int at) {
        return batch.getLong(at + Completion.WR_ID);
    }

    int status(int at) {
        return batch.getInt(at + Completion.STATUS);
    }

    int vendorError(int at) {
        return batch.getInt(at + Completion.VENDOR_ERROR);
    }

    int byteLength(int at) {
        return batch.getInt(at + Completion.BYTE_LENGTH);
    }

    int immediate(int at) {
        return batch.getInt(at + Completion.IMMEDIATE);
    }

    int qpNumber(int at) {
        return batch.getInt(at + Completion.QP_NUMBER);
    }

    int flags(int at) {
        return batch.getInt(at + Completion.FLAGS);
    }

    /**
     * Asks for an event at the next completion, once per event; returns true if completions arrived before it was
     * armed (they raise no event, so the caller must not sleep). They are kept, polled, for the next drain.
     */
    boolean arm() throws IOException {
        if (batchNext < batchSize) {
            return true;
        }
        if (!armed) {
            // Look before asking: a loop that waits before it polls (Netty's, when it blocks) comes here after busy
            // turns too, and an armed CQ costs a system call on software devices and raises an event to read later.
            if (poll() > 0) {
                return true;
            }
            notifyCall.execute();
            armed = true;
        }
        return poll() > 0;
    }

    /** Whether this CQ was asked for an event that the loop has not read yet. */
    boolean armed() {
        return armed;
    }

    /** The loop read and acknowledged an event for this CQ: the next {@link #arm()} asks for one again. */
    void onEvent() {
        armed = false;
    }

    void destroy() throws IOException {
        notifyCall.free();
        cq.destroyCQ();
    }

    @Override
    public String toString() {
        return "CQ[" + Long.toHexString(handle) + ", " + reserved + "/" + capacity + " entries, " + queuePairs
                + " queue pairs]";
    }
}
