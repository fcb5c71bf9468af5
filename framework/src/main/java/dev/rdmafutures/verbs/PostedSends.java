package dev.rdmafutures.verbs;

import dev.rdmafutures.spi.WorkRequest;

/**
 * The READs, WRITEs and SENDs a queue pair has posted and not yet retired, oldest first, each with the sequence
 * number its work requests carry: an RC send queue completes in order, so a completion belongs to the oldest entry
 * when its sequence matches, and to none (a part of a request whose post failed half-way) when it does not. A fixed
 * ring of the initiator depth, which the core never exceeds. Poller thread only.
 */
final class PostedSends {
    private final WorkRequest[] requests;
    private final int[] sequences;
    private int head;
    private int size;

    PostedSends(int capacity) {
        this.requests = new WorkRequest[capacity];
        this.sequences = new int[capacity];
    }

    /** Appends {@code request}, posted with {@code sequence}. */
    void add(WorkRequest request, int sequence) {
        if (size == requests.length) {
            throw new IllegalStateException("more than " + size + " requests posted: the core's slots failed");
        }
        int at = (head + size) % requests.length;
        requests[at] = request;
        sequences[at] = sequence;
        size++;
    }

    /** Whether the oldest request was posted with {@code sequence}. */
    boolean oldestIs(int sequence) {
        return size > 0 && sequences[head] == sequence;
    }

    /** Removes and returns the oldest request, or null. */
    WorkRequest poll() {
        if (size == 0) {
            return null;
        }
        WorkRequest oldest = requests[head];
        requests[head] = null;
        head = (head + 1) % requests.length;
        size--;
        return oldest;
    }
}
