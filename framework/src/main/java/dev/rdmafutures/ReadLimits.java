package dev.rdmafutures;

/**
 * A pair of RDMA read limits, NDK's {@code InboundReadLimit} and {@code OutboundReadLimit} (iWARP's IRD and ORD,
 * rdma_cm's responder_resources and initiator_depth).
 *
 * <ul>
 *   <li>{@code inbound}: how many RDMA reads the peer may have in flight against this side.</li>
 *   <li>{@code outbound}: how many RDMA reads this side may have in flight against the peer.</li>
 * </ul>
 *
 * <p>Values are 0..{@link #MAX}; 0 is what a peer that allows no reads negotiates. What a consumer asks for with
 * {@code withReadLimits(in, out)} must be at least 1; the provider then caps it to the adapter's maximum and to
 * what the peer offers, as NDK says, and {@link ConnectionData#readLimits()} reports the result.
 *
 * @param inbound  reads the peer may have outstanding against us
 * @param outbound reads we may have outstanding against the peer
 */
public record ReadLimits(int inbound, int outbound) {
    /** The largest limit any wire can carry (MPA revision 2's 14-bit IRD/ORD field). */
    public static final int MAX = 0x3FFF;

    /** The limits a connect or accept asks for when the caller names none: 16 each. */
    public static final ReadLimits DEFAULT = new ReadLimits(16, 16);

    /** Rejects values outside 0..{@link #MAX} with {@link Status#INVALID_PARAMETER}. */
    public ReadLimits {
        checkRange("inbound", inbound, 0);
        checkRange("outbound", outbound, 0);
    }

    /**
     * Limits a consumer requests: each must be 1..{@link #MAX}, else {@link Status#INVALID_PARAMETER}.
     * Values above the adapter's maximum are legal and capped, as NDK specifies.
     */
    public static ReadLimits requested(int inbound, int outbound) {
        checkRange("inbound", inbound, 1);
        checkRange("outbound", outbound, 1);
        return new ReadLimits(inbound, outbound);
    }

    private static void checkRange(String which, int value, int min) {
        if (value < min || value > MAX) {
            throw new RdmaException(Status.INVALID_PARAMETER,
                    which + " read limit " + value + " is out of range " + min + ".." + MAX
                            + " (the provider caps it further to the adapter's maximum)");
        }
    }
}
