package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvCompChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The CQs of one loop, which its queue pairs share, and the queue pair each completion belongs to, by its QP number.
 * A duty cycle polls these few CQs, never each connection. A queue pair joins the first CQ with room for everything
 * it can have outstanding; when none has, a new CQ is created, twice as large as the largest so far (the first
 * {@value #FIRST_ENTRIES} entries), at least the queue pair's need and at most the device's {@code max_cqe}: a small
 * application keeps a small CQ, and the number of CQs grows with the logarithm of the connections until
 * {@code max_cqe} is reached. A CQ that no queue pair uses is destroyed, after the current drain, when another unused
 * one is kept already.
 *
 * <p>A QP number can come back on a new QP once its QP is destroyed, and a device may leave the old QP's flushed
 * completions in the CQ. So a queue pair's number is forgotten only after its QP was destroyed and the CQ drained,
 * its completions dropped, all on this thread: no QP can be created in between. Poller thread only.
 */
final class CompletionQueues {
    /** The first CQ's entries unless a queue pair needs more: two queue pairs of default depths on rxe. */
    static final int FIRST_ENTRIES = 1024;

    private final VerbsEventLoop loop;
    private final IbvCompChannel channel;
    private final int maxEntries;
    private final List<CompletionQueue> queues = new ArrayList<>();
    private final List<CompletionQueue> retired = new ArrayList<>();
    private final Int2ObjectHashMap<VerbsQueuePair> byNumber = new Int2ObjectHashMap<>();

    CompletionQueues(VerbsEventLoop loop, IbvCompChannel channel, int maxEntries) {
        this.loop = loop;
        this.channel = channel;
        this.maxEntries = maxEntries;
    }

    /**
     * Reserves {@code ownEntries} (and {@code sharedQueue}'s depth, once per CQ) in a CQ with room, creating one if
     * none has it.
     */
    CompletionQueue reserve(int ownEntries, VerbsSharedReceiveQueue sharedQueue) throws IOException {
        for (CompletionQueue queue : queues) {
            if (queue.fits(queue.entriesFor(ownEntries, sharedQueue))) {
                queue.reserve(ownEntries, sharedQueue);
                return queue;
            }
        }
        int needed = ownEntries + (sharedQueue == null ? 0 : sharedQueue.depth());
        int largest = FIRST_ENTRIES / 2;
        for (CompletionQueue queue : queues) {
            largest = Math.max(largest, queue.capacity());
        }
        CompletionQueue queue = new CompletionQueue(loop.device().context(), channel,
                Math.min(maxEntries, Math.max(needed, 2 * largest)));
        queues.add(queue);
        queue.reserve(ownEntries, sharedQueue);
        return queue;
    }

    /** Routes the completions of QP {@code number} to {@code queuePair} from now on. */
    void register(int number, VerbsQueuePair queuePair) {
        byNumber.put(number, queuePair);
    }

    /**
     * After {@code queuePair}'s QP was destroyed, or never created: drains its CQ (handing the other queue pairs
     * their completions and dropping its own), forgets its number and gives back its entries. A CQ left unused is
     * retired when another unused one is kept already.
     */
    void release(VerbsQueuePair queuePair, int number, CompletionQueue queue, int ownEntries,
                 VerbsSharedReceiveQueue sharedQueue) {
        drain(queue, false);
        if (byNumber.get(number) == queuePair) {
            byNumber.remove(number);
        }
        queue.unreserve(ownEntries, sharedQueue);
        if (!queue.isUnused()) {
            return;
        }
        for (CompletionQueue other : queues) {
            if (other != queue && other.isUnused()) {
                queues.remove(queue); // a drain going through the list meets the next CQ a cycle later
                retired.add(queue);
                return;
            }
        }
    }

    /** The duty cycle's gather: a batch from every CQ whose last one is handed over; the completions waiting. */
    int gather() {
        int ready = 0;
        for (int i = 0; i < queues.size(); i++) { // by index: no iterator per cycle
            ready += queues.get(i).gather();
        }
        return ready;
    }

    /**
     * The duty cycle's dispatch: hands every CQ's gathered completions to their queue pairs, and polls a CQ whose
     * batch came back full again until one comes back short (the CQ was empty then; what arrived since waits for the
     * next cycle, or for the poll that arming makes); the work done.
     */
    int dispatch() {
        int work = 0;
        for (int i = 0; i < queues.size(); i++) {
            work += drain(queues.get(i), true);
        }
        destroyRetired();
        return work;
    }

    /**
     * Hands {@code queue}'s completions to their queue pairs. The duty cycle's ({@code cycle}) stops after a short
     * batch, and has nothing to do when its gather found the CQ empty; any other (a queue pair's end, its release,
     * which commands run between a gather and its dispatch) polls until the CQ is empty, so no completion of a QP
     * whose number is forgotten after it stays behind. A completion of a QP this loop no longer routes is dropped:
     * its requests were settled when its connection ended.
     */
    int drain(CompletionQueue queue, boolean cycle) {
        if (cycle && queue.handedOverShortBatch()) {
            return 0;
        }
        int work = 0;
        try {
            int at;
            while ((at = queue.next()) >= 0) {
                VerbsQueuePair queuePair = byNumber.get(queue.qpNumber(at));
                if (queuePair != null) {
                    queuePair.onCompletion(queue, at);
                }
                work++;
                if (cycle && queue.handedOverShortBatch()) {
                    break;
                }
            }
        } catch (IOException e) {
            loop.poller().recordError("poll completion queue", e);
        }
        return work;
    }

    /** Arms every CQ before the loop sleeps; true if completions are already waiting. */
    boolean arm() throws IOException {
        destroyRetired();
        for (int i = 0; i < queues.size(); i++) {
            if (queues.get(i).arm()) {
                return true;
            }
        }
        return false;
    }

    /**
     * How many CQs are armed: the most completion events the channel can hold, as each armed CQ raises one and is then
     * disarmed until the next {@link #arm()}. A retired CQ that was armed may raise one more, read at the next wait.
     */
    int armedCount() {
        int armed = 0;
        for (int i = 0; i < queues.size(); i++) {
            if (queues.get(i).armed()) {
                armed++;
            }
        }
        return armed;
    }

    /** The loop read (and acknowledged) a completion event for CQ {@code handle}: it may be armed again. */
    void onEvent(long handle) {
        for (int i = 0; i < queues.size(); i++) {
            if (queues.get(i).handle() == handle) {
                queues.get(i).onEvent();
                return;
            }
        }
    }

    private void destroyRetired() {
        if (retired.isEmpty()) {
            return;
        }
        for (CompletionQueue queue : retired) {
            destroy(queue);
        }
        retired.clear();
    }

    private void destroy(CompletionQueue queue) {
        try {
            queue.destroy();
        } catch (IOException e) {
            loop.poller().recordError("destroy completion queue", e);
        }
    }

    /** Destroys every CQ, once the loop's connections destroyed their QPs. */
    void close() {
        destroyRetired();
        for (CompletionQueue queue : queues) {
            destroy(queue);
        }
        queues.clear();
        byNumber.clear();
    }
}
