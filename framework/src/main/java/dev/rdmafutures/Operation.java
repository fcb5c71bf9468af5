package dev.rdmafutures;

import dev.rdmafutures.spi.WorkCompletion;
import dev.rdmafutures.spi.WorkRequest;
import java.util.OptionalInt;

/** One operation posted through the future API: its future, and the region it holds in use until it completes. */
final class Operation implements WorkCompletion {
    final RdmaFuture<Completion> future = new RdmaFuture<>();
    final WorkRequest request = new WorkRequest(this);
    private final Completions completions;
    private MemoryRegionImpl region;

    Operation(Completions completions) {
        this.completions = completions;
    }

    /** The request is filled in and validated: hold its region until the outcome. */
    void start(MemoryRegionImpl local) {
        this.region = local;
        local.acquire();
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
