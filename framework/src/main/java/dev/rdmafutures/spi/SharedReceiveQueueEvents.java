package dev.rdmafutures.spi;

/** What a {@link ProviderSharedReceiveQueue} reports to the core. */
public interface SharedReceiveQueueEvents {
    /** Fewer receives than the armed threshold remain: {@code remaining} are still posted. Once per arming. */
    void onLimitReached(int remaining);
}
