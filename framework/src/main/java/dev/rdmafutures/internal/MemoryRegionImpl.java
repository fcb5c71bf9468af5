package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.spi.ProviderRegion;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registered region: the provider's registration plus a count of operations using it, so that a cache can
 * retire it without ever deregistering under a running operation.
 */
public final class MemoryRegionImpl implements MemoryRegion {
    private final RuntimeOwner owner;
    private final DomainImpl domain;
    private final ProviderRegion region;
    private final AtomicInteger inUse = new AtomicInteger();
    private final RemoteBuffer remote;
    /** Rights never change after registration: asked once, not per operation. */
    private final boolean localWrite;
    private volatile boolean retiring;

    MemoryRegionImpl(DomainImpl domain, ProviderRegion region) {
        this.owner = domain.owner();
        this.domain = domain;
        this.region = region;
        this.remote = new RemoteBuffer(region.remoteBase(), region.length(), region.token());
        this.localWrite = region.access().contains(Access.LOCAL_WRITE);
    }

    /** Whether operations may place data into the region ({@link Access#LOCAL_WRITE}). */
    boolean allowsLocalWrite() {
        return localWrite;
    }

    ProviderRegion provider() {
        return region;
    }

    boolean belongsTo(RuntimeOwner runtime) {
        return owner == runtime;
    }

    DomainImpl domain() {
        return domain;
    }

    @Override
    public ByteBuffer buffer() {
        return region.bytes().duplicate();
    }

    @Override
    public int length() {
        return region.length();
    }

    @Override
    public Set<Access> access() {
        return region.access();
    }

    @Override
    public int token() {
        return region.token();
    }

    @Override
    public RemoteBuffer remote() {
        return remote;
    }

    @Override
    public boolean isValid() {
        return region.isValid();
    }

    /** An operation starts using the region. */
    void acquire() {
        inUse.incrementAndGet();
    }

    /** An operation stopped using it; the last one out finishes a pending retirement. */
    void release() {
        if (inUse.decrementAndGet() == 0 && retiring) {
            deregister();
        }
    }

    /** Deregisters now if idle, otherwise when the last operation using it completes. */
    public void retire() {
        retiring = true;
        if (inUse.get() == 0) {
            deregister();
        }
    }

    @Override
    public void deregister() {
        region.invalidate();
        domain.untrack(this);
    }

    @Override
    public void close() {
        deregister();
    }

    @Override
    public String toString() {
        return String.format("MemoryRegion[%d bytes, token=0x%08x, %s%s]", length(), token(), access(),
                isValid() ? "" : ", invalid");
    }
}
