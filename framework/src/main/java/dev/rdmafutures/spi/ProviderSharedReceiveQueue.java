package dev.rdmafutures.spi;

/**
 * A provider's shared receive queue, from {@link ProviderDomain#createSharedReceiveQueue}. Its connections take
 * receives from it on their own poller threads, so it is thread-safe; the core posts on any poller thread and never
 * has more receives outstanding than the depth it was created with.
 */
public interface ProviderSharedReceiveQueue {
    /**
     * Posts a receive ({@link WorkRequest.Kind#RECEIVE}). The connection that takes it reports
     * {@link WorkCompletion#arrivedOn} as it takes it and later the outcome, on its poller thread.
     */
    void post(WorkRequest receive);

    /**
     * Arms the one-shot limit: as soon as fewer than {@code threshold} receives remain posted, the provider calls
     * {@link SharedReceiveQueueEvents#onLimitReached} once (on any poller thread). Replaces an armed threshold.
     */
    void armLimit(int threshold);

    /** Destroys the queue; receives still posted fail with CANCELED. The core closes its connections first. */
    void close();
}
