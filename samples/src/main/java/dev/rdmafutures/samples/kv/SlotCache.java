package dev.rdmafutures.samples.kv;

import java.util.Arrays;

/**
 * Where each key's index slot is, as an RDMA client learnt it: a GET of a key whose slot it knows READs that one slot
 * rather than a neighbourhood of {@value KvLayout#NEIGHBOURHOOD}, so it moves what the TCP twin's answer moves (the
 * slot with its inline value). Valid for good because the index never moves a key (linear probing, never deleted
 * from, PUTs rewrite the slot in place); the slot READ still checks the key and the checksum, and a slot that holds
 * another key sends the GET back to the key's home. Client-side caching of the server's index is how RDMA key-value
 * stores spare round trips and bytes (Pilaf, FaRM).
 *
 * <p>Confined to the client's one thread ({@link RdmaKvClient}). Keys are the workload's, {@code 0} to
 * {@code keys - 1}; a slot is known only below the index's capacity.
 */
final class SlotCache {
    private static final int UNKNOWN = -1;
    private final int[] slots;
    private long hits;

    /** For keys {@code 0} to {@code keys - 1}. */
    SlotCache(int keys) {
        this.slots = new int[keys];
        Arrays.fill(slots, UNKNOWN);
    }

    /** {@code key}'s slot, or -1 when not known, in an index of {@code capacity} slots. */
    int slotOf(long key, int capacity) {
        int slot = key >= 0 && key < slots.length ? slots[(int) key] : UNKNOWN;
        if (slot >= capacity) {
            return UNKNOWN; // learnt from another server's index
        }
        if (slot >= 0) {
            hits++;
        }
        return slot;
    }

    /** How many lookups found the key's slot known. */
    long hits() {
        return hits;
    }

    /** {@code key} was found in {@code slot}. */
    void remember(long key, int slot) {
        if (key >= 0 && key < slots.length) {
            slots[(int) key] = slot;
        }
    }

    /** {@code key} is not where this cache said. */
    void forget(long key) {
        remember(key, UNKNOWN);
    }
}
