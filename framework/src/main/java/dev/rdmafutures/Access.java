package dev.rdmafutures;

/** What a {@link MemoryRegion} allows (NDK's MR access flags). Local reads are always allowed. */
public enum Access {
    /** This side's operations may write into the region: RDMA Read targets and posted receives need it. */
    LOCAL_WRITE,
    /** A peer may RDMA Read the region through its token. */
    REMOTE_READ,
    /** A peer may RDMA Write the region through its token. */
    REMOTE_WRITE
}
