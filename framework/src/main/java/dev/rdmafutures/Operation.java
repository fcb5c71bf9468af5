package dev.rdmafutures;

import dev.rdmafutures.spi.WorkCompletion;
import java.util.OptionalInt;

/** One posted operation: its future, and the region it holds in use until it completes. */
final class Operation implements WorkCompletion {
    final RdmaFuture<Completion> future = new RdmaFuture<>();
    /** Set once, right after construction, before the request is handed to the poller. */
    dev.rdmafutures.spi.WorkRequest request;
    private final Completions completions;
    private final MemoryRegionImpl region;

    Operation(Completions completions, MemoryRegionImpl region) {
        this.completions = completions;
        this.region = region;
        region.acquire();
    }

    @Override
    public void completed(int bytes) {
        region.release();
        completions.deliver(future, Completion.of(bytes));
    }

    @Override
    public void completedWithInvalidate(int bytes, int token) {
        region.release();
        completions.deliver(future, new Completion(bytes, OptionalInt.of(token)));
    }

    @Override
    public void failed(RdmaException error) {
        region.release();
        completions.fail(future, error);
    }
}
