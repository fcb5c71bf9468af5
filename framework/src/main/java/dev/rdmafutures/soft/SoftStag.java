package dev.rdmafutures.soft;

/**
 * An entry of the device's STag table ({@link RegionTable}): a region, a memory window, or a fast-register slot
 * without a registration in force. An iWARP STag is a 24-bit index and an 8-bit key (RFC 5040 section 2.1); an entry
 * owns its index while it is in the table and knows which STag with that index is valid now: a region keeps one for
 * life, a window takes a new key with every bind, a fast-register slot with every registration.
 */
sealed interface SoftStag permits SoftRegion, SoftWindow, SoftFastRegion {
    /** The index of {@code stag}: its upper 24 bits. */
    static int indexOf(int stag) {
        return stag >>> 8;
    }

    /** The index this entry owns. */
    int index();

    /** Whether the entry left the table (a region invalidated, a window closed): its index may be another's now. */
    boolean released();
}
