package dev.rdmafutures;

import java.util.StringJoiner;

/**
 * NDK's request flags for data-path operations, as an immutable set. Every combination is a shared constant, so
 * {@link #and} and the constants allocate nothing: pass flags on the allocation-free callback path freely.
 * {@link #NONE} is the empty set.
 */
public final class OperationFlags {
    private static final String[] NAMES = {"SILENT_SUCCESS", "READ_FENCE", "RDMA_READ_LOCAL_INVALIDATE", "DEFER"};
    private static final OperationFlags[] ALL = combinations();

    /** No flag: the operation completes on its own and starts at once. */
    public static final OperationFlags NONE = ALL[0];
    /**
     * Success produces no completion of its own: the operation is reported when a later signalled operation on the
     * same connection completes (completions are in order) or the connection ends. Failures are reported at once.
     */
    public static final OperationFlags SILENT_SUCCESS = ALL[1];
    /** The operation starts only after every earlier RDMA Read on the connection has completed. */
    public static final OperationFlags READ_FENCE = ALL[2];
    /**
     * After the read completes, the local region's token is invalid: peers can no longer reach it. Honoured where
     * {@link AdapterInfo#isReadLocalInvalidateSupported()}; ignored elsewhere, as NDK says.
     */
    public static final OperationFlags RDMA_READ_LOCAL_INVALIDATE = ALL[4];
    /** The provider may hold the operation and transmit it with the next operation posted without this flag. */
    public static final OperationFlags DEFER = ALL[8];

    private final int mask;

    private OperationFlags(int mask) {
        this.mask = mask;
    }

    private static OperationFlags[] combinations() {
        OperationFlags[] all = new OperationFlags[1 << NAMES.length];
        for (int i = 0; i < all.length; i++) {
            all[i] = new OperationFlags(i);
        }
        return all;
    }

    /** These flags and {@code other}'s: a shared constant, nothing allocated. */
    public OperationFlags and(OperationFlags other) {
        return ALL[mask | other.mask];
    }

    /** Whether every flag of {@code other} is in this set. */
    public boolean contains(OperationFlags other) {
        return (mask & other.mask) == other.mask;
    }

    /** Whether the set is {@link #NONE}. */
    public boolean isEmpty() {
        return mask == 0;
    }

    @Override
    public String toString() {
        StringJoiner s = new StringJoiner(", ", "OperationFlags[", "]");
        for (int i = 0; i < NAMES.length; i++) {
            if ((mask & (1 << i)) != 0) {
                s.add(NAMES[i]);
            }
        }
        return s.toString();
    }
}
