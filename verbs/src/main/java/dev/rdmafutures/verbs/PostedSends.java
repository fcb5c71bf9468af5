package dev.rdmafutures.verbs;

import dev.rdmafutures.spi.WorkRequest;

/**
 * The READs, WRITEs and SENDs a queue pair has posted and not yet reported, in posting order, each in the slot its
 * work requests name together with the sequence number of its post. Completions are matched to their request by
 * slot and reported in posting order, as a send queue's completions are meant to come: siw completes a WRITE or a
 * SEND as soon as it is sent, before the response to an earlier READ has arrived. A request is added when it joins
 * the duty cycle's chain, so the newest may not have reached the device yet. A completion whose sequence matches no
 * slot belongs to a part of a READ whose post failed half-way. A fixed ring of the initiator depth, which
 * the core never exceeds. Poller thread only.
 */
final class PostedSends {
    /** Work-request id bits: the slot, then the sequence number. */
    static final int SLOT_BITS = 24;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;

    private final WorkRequest[] requests;
    private final int[] sequences;
    private final boolean[] done;
    private final int[] statuses;
    private final int[] vendorErrors;
    /** A window bind's or invalidation's token. */
    private final int[] tokens;
    private int head;
    private int size;

    PostedSends(int capacity) {
        if (capacity > SLOT_MASK + 1) {
            throw new IllegalArgumentException("at most " + (SLOT_MASK + 1) + " requests, not " + capacity);
        }
        this.requests = new WorkRequest[capacity];
        this.sequences = new int[capacity];
        this.done = new boolean[capacity];
        this.statuses = new int[capacity];
        this.vendorErrors = new int[capacity];
        this.tokens = new int[capacity];
    }

    /** The work-request id of a request posted with {@code sequence} into the slot {@link #add} will return next. */
    long nextId(int sequence) {
        return ((long) sequence << SLOT_BITS) | ((head + size) % requests.length);
    }

    /**
     * Appends {@code request}, posted with {@code sequence} under {@link #nextId}; {@code token}: a window bind's or
     * invalidation's, else 0.
     */
    void add(WorkRequest request, int sequence, int token) {
        if (size == requests.length) {
            throw new IllegalStateException("more than " + size + " requests posted: the core's slots failed");
        }
        int slot = (head + size) % requests.length;
        requests[slot] = request;
        sequences[slot] = sequence;
        done[slot] = false;
        statuses[slot] = VerbsErrors.WC_SUCCESS;
        tokens[slot] = token;
        size++;
    }

    /**
     * Records a completion of work request {@code wrId} (its low 56 bits): the request's last ({@code part} false)
     * or an unsignalled part of it, which completes only when it failed. The first failure is the request's outcome.
     * Returns false when {@code wrId} names no posted request.
     */
    boolean complete(long wrId, boolean part, int status, int vendorError) {
        int slot = (int) (wrId & SLOT_MASK);
        if (slot >= requests.length || requests[slot] == null || sequences[slot] != (int) (wrId >>> SLOT_BITS)) {
            return false;
        }
        if (status != VerbsErrors.WC_SUCCESS && statuses[slot] == VerbsErrors.WC_SUCCESS) {
            statuses[slot] = status;
            vendorErrors[slot] = vendorError;
        }
        if (!part) {
            done[slot] = true;
        }
        return true;
    }

    /** Whether the oldest request has completed, so it can be reported. */
    boolean oldestDone() {
        return size > 0 && done[head];
    }

    /** The oldest request's work-completion status. */
    int oldestStatus() {
        return statuses[head];
    }

    /** The oldest request's vendor error. */
    int oldestVendorError() {
        return vendorErrors[head];
    }

    /** The oldest request's token, as {@link #add} was given it. */
    int oldestToken() {
        return tokens[head];
    }

    /** Whether the oldest request completed successfully: only then may {@link #poll()} report it as done. */
    boolean oldestSucceeded() {
        return done[head] && statuses[head] == VerbsErrors.WC_SUCCESS;
    }

    /**
     * Removes the {@code count} newest requests, which the device refused or never got, and returns them oldest
     * first; their slots take new requests, and a completion of a part posted before the refusal matches none.
     */
    WorkRequest[] removeNewest(int count) {
        WorkRequest[] newest = new WorkRequest[count];
        for (int i = count - 1; i >= 0; i--) {
            int slot = (head + --size) % requests.length;
            newest[i] = requests[slot];
            requests[slot] = null;
        }
        return newest;
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
