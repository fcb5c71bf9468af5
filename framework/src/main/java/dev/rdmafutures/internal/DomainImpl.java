package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.FastRegion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.ProtectionDomain;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ProviderDomain;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The API face of a provider's protection domain: what was made in it and is still open, so that it closes only when
 * nothing is left, as NDK's PD does. The runtime's default domain, which the API does not hand out, closes with the
 * runtime.
 */
final class DomainImpl implements ProtectionDomain {
    private final RuntimeCore core;
    private final ProviderDomain provider;
    private final boolean runtimeDefault;
    /** Regions, windows, slots and shared receive queues made here and not yet closed. */
    private final Set<Object> members = ConcurrentHashMap.newKeySet();
    private final ReentrantReadWriteLock creations = new ReentrantReadWriteLock();
    private volatile boolean closed;

    DomainImpl(RuntimeCore core, ProviderDomain provider, boolean runtimeDefault) {
        this.core = core;
        this.provider = provider;
        this.runtimeDefault = runtimeDefault;
    }

    ProviderDomain provider() {
        return provider;
    }

    RuntimeOwner owner() {
        return core;
    }

    /** {@code domain} as one of {@code runtime}'s open domains. */
    static DomainImpl check(RuntimeOwner runtime, ProtectionDomain domain) {
        Objects.requireNonNull(domain, "domain");
        if (!(domain instanceof DomainImpl impl) || impl.core != runtime) {
            throw new RdmaException(Status.INVALID_PARAMETER, domain + " does not belong to this runtime");
        }
        impl.checkOpen("open a connection in");
        return impl;
    }

    void checkOpen(String action) {
        if (closed) {
            throw new RdmaException(Status.INVALID_DEVICE_STATE, "cannot " + action + " " + this + ": it is closed");
        }
    }

    /**
     * Makes a member with {@code factory} while the domain is open: creations run side by side, and a close waits
     * for those under way, so none lands in a released domain.
     */
    <T> T create(String action, Supplier<T> factory) {
        creations.readLock().lock();
        try {
            checkOpen(action);
            T member = factory.get();
            members.add(member);
            return member;
        } finally {
            creations.readLock().unlock();
        }
    }

    /** {@code member}, made in this domain, was closed. */
    void untrack(Object member) {
        members.remove(member);
        core.untrack(member);
    }

    @Override
    public MemoryRegion register(ByteBuffer buffer, Access... access) {
        return core.register(this, buffer, access);
    }

    @Override
    public MemoryWindow allocateMemoryWindow() {
        return core.allocateMemoryWindow(this);
    }

    @Override
    public FastRegion allocateFastRegion() {
        return core.allocateFastRegion(this);
    }

    @Override
    public SharedReceiveQueue sharedReceiveQueue(int depth, int maxSge) {
        return core.sharedReceiveQueue(this, depth, maxSge);
    }

    @Override
    public boolean isClosed() {
        return closed || core.isClosed();
    }

    @Override
    public void close() {
        creations.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            if (!members.isEmpty()) {
                throw new RdmaException(Status.INVALID_DEVICE_STATE, this + " still holds " + members.size()
                        + " open region(s), window(s), slot(s) or shared receive queue(s); close them first");
            }
            closed = true;
        } finally {
            creations.writeLock().unlock();
        }
        core.untrack(this);
        provider.close();
    }

    /** The runtime is closing, after everything made in the domain: releases it, once. */
    void closeWithRuntime() {
        creations.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            creations.writeLock().unlock();
        }
        provider.close();
    }

    @Override
    public String toString() {
        return runtimeDefault ? "ProtectionDomain[default]" : "ProtectionDomain@" + Integer.toHexString(hashCode());
    }
}
