package dev.rdmafutures;

/** NDK's request flags for data-path operations. */
public enum OperationFlag {
    /**
     * Success produces no completion of its own: the future completes when a later signalled operation on the
     * same connection completes (completions are in order) or the connection ends. Failures complete it at once.
     */
    SILENT_SUCCESS,
    /** The operation starts only after every earlier RDMA Read on the connection has completed. */
    READ_FENCE,
    /**
     * After the read completes, the local region's token is invalid: peers can no longer reach it. Honoured where
     * {@link AdapterInfo#isReadLocalInvalidateSupported()}; ignored elsewhere, as NDK says.
     */
    RDMA_READ_LOCAL_INVALIDATE,
    /** The provider may hold the operation and transmit it with the next operation posted without this flag. */
    DEFER
}
