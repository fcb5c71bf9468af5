package dev.rdmafutures.internal;

import dev.rdmafutures.FastRegion;
import dev.rdmafutures.spi.ProviderFastRegion;

/** The API face of a provider's fast-register region slot. */
final class FastRegionImpl implements FastRegion {
    private final RuntimeOwner owner;
    private final DomainImpl domain;
    private final ProviderFastRegion slot;
    private volatile boolean closed;

    FastRegionImpl(DomainImpl domain, ProviderFastRegion slot) {
        this.owner = domain.owner();
        this.domain = domain;
        this.slot = slot;
    }

    ProviderFastRegion provider() {
        return slot;
    }

    boolean belongsTo(RuntimeOwner runtime) {
        return owner == runtime;
    }

    DomainImpl domain() {
        return domain;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public boolean isRegistered() {
        return !closed && slot.isBound();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        slot.close();
        domain.untrack(this);
    }

    @Override
    public String toString() {
        return String.format("FastRegion[token %08x%s]", slot.token(), isRegistered() ? ", registered" : "");
    }
}
