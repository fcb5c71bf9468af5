package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.impl.NatObject;
import java.io.IOException;

/**
 * One connection's CQ, sized for everything its QP can have outstanding (so it cannot overrun), reporting to its
 * loop's completion channel. Polled with DiSNI's stateful {@link SVCPollCq} into reused {@link IbvWC}s: no
 * allocation per completion. Poller thread only.
 */
final class CompletionQueue {
    /** Completions taken per poll; a poll that returns fewer has emptied the CQ. */
    static final int POLL_BATCH = 16;

    private final IbvCQ cq;
    private final long handle;
    private final IbvWC[] completions = new IbvWC[POLL_BATCH];
    private final SVCPollCq pollCall;
    private final SVCReqNotify notifyCall;
    private int peeked;
    private boolean armed;

    CompletionQueue(IbvContext context, IbvCompChannel channel, int entries) throws IOException {
        this.cq = context.createCQ(channel, entries, 0);
        this.handle = ((NatObject) cq).getObjId();
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new IbvWC();
        }
        this.pollCall = cq.poll(completions, POLL_BATCH);
        this.notifyCall = cq.reqNotification(false);
    }

    IbvCQ cq() {
        return cq;
    }

    long handle() {
        return handle;
    }

    /** Polls up to one batch; the completions are {@link #completion(int)} until the next call. */
    int poll() throws IOException {
        int n = peeked;
        peeked = 0;
        return n > 0 ? n : pollCall.execute().getPolls();
    }

    IbvWC completion(int index) {
        return completions[index];
    }

    /**
     * Asks for an event at the next completion, once per event; returns true if completions arrived before it was
     * armed (they raise no event, so the caller must not sleep). They are kept for the next {@link #poll()}.
     */
    boolean arm() throws IOException {
        if (!armed) {
            notifyCall.execute();
            armed = true;
            peeked = pollCall.execute().getPolls();
        }
        return peeked > 0;
    }

    /** The loop read an event for this CQ: acknowledge it (destroying waits for every acknowledgement). */
    void onEvent() throws IOException {
        cq.ackEvents(1);
        armed = false;
    }

    void destroy() throws IOException {
        pollCall.free();
        notifyCall.free();
        cq.destroyCQ();
    }
}
