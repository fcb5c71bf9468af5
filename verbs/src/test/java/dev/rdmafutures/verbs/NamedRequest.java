package dev.rdmafutures.verbs;

import dev.rdmafutures.spi.ProviderRegion;
import dev.rdmafutures.spi.ProviderWindow;
import dev.rdmafutures.spi.WorkCompletion;
import dev.rdmafutures.spi.WorkRequest;

/**
 * A work request that is nothing but its kind and its name, for tests of the provider's bookkeeping (which request
 * comes back, and when), where no segment, remote side or completion is read.
 */
record NamedRequest(Kind kind, String name) implements WorkRequest {
    @Override
    public int segmentCount() {
        return 0;
    }

    @Override
    public ProviderRegion region(int index) {
        return null;
    }

    @Override
    public int offset(int index) {
        return 0;
    }

    @Override
    public int segmentLength(int index) {
        return 0;
    }

    @Override
    public int length() {
        return 0;
    }

    @Override
    public long remoteAddress() {
        return 0;
    }

    @Override
    public int remoteToken() {
        return 0;
    }

    @Override
    public int flags() {
        return 0;
    }

    @Override
    public ProviderWindow window() {
        return null;
    }

    @Override
    public WorkCompletion completion() {
        return null;
    }
}
