package dev.rdmafutures;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.rdmafutures.internal.MemoryRegionImpl;
import dev.rdmafutures.internal.Validation;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Registrations reused for buffers an application registers again and again (Caffeine, W-TinyLFU eviction).
 * {@link #register} returns the same {@link MemoryRegion} for the same buffer object, range and access while it is
 * cached; an evicted region is deregistered as soon as no operation uses it, never under a running operation.
 * The cache owns its regions: do not close them, call {@link #invalidate} or {@link #close()}. Thread-safe.
 *
 * <p>Builder defaults: at most 1024 regions, no byte bound, no expiry.
 */
public final class RegistrationCache implements AutoCloseable {
    private record Key(ByteBuffer buffer, int position, int limit, Set<Access> access) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.buffer == buffer && k.position == position && k.limit == limit
                    && k.access.equals(access);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(buffer) * 31 + position * 17 + limit + access.hashCode();
        }
    }

    private final RdmaRuntime runtime;
    private final Cache<Key, MemoryRegionImpl> regions;

    private RegistrationCache(Builder b) {
        this.runtime = b.runtime;
        Caffeine<Key, MemoryRegionImpl> caffeine = Caffeine.newBuilder()
                .executor(Runnable::run)
                .removalListener((Key k, MemoryRegionImpl region, RemovalCause cause) -> {
                    if (region != null) {
                        region.retire();
                    }
                });
        if (b.maximumBytes > 0) {
            caffeine.maximumWeight(b.maximumBytes).weigher((Key k, MemoryRegionImpl r) -> r.length());
        } else {
            caffeine.maximumSize(b.maximumRegions);
        }
        if (b.expireAfterAccess != null) {
            caffeine.expireAfterAccess(b.expireAfterAccess);
        }
        this.regions = caffeine.build();
    }

    /** A builder for a cache over {@code runtime}'s registrations. */
    public static Builder builder(RdmaRuntime runtime) {
        return new Builder(Objects.requireNonNull(runtime, "runtime"));
    }

    /**
     * The cached registration of {@code buffer} (position to limit) with {@code access}, registering it on a miss
     * or when the cached one was invalidated.
     *
     * @throws RdmaException as {@link RdmaRuntime#register}
     */
    public MemoryRegion register(ByteBuffer buffer, Access... access) {
        Objects.requireNonNull(buffer, "buffer");
        EnumSet<Access> rights = Validation.accessRights(access);
        Key key = new Key(buffer, buffer.position(), buffer.limit(), rights);
        MemoryRegionImpl cached = regions.getIfPresent(key);
        if (cached != null && cached.isValid()) {
            return cached;
        }
        if (cached != null) {
            regions.asMap().remove(key, cached);
        }
        return regions.asMap().computeIfAbsent(key, k ->
                (MemoryRegionImpl) runtime.register(buffer, rights.toArray(new Access[0])));
    }

    /** Evicts every registration of {@code buffer}; each is deregistered once idle. */
    public void invalidate(ByteBuffer buffer) {
        regions.asMap().keySet().removeIf(k -> k.buffer == buffer);
    }

    /** How many registrations are cached. */
    public long size() {
        regions.cleanUp();
        return regions.estimatedSize();
    }

    /** Evicts everything; each region is deregistered once idle. */
    @Override
    public void close() {
        regions.invalidateAll();
        regions.cleanUp();
    }

    /** Builds a {@link RegistrationCache}; setters validate at once. */
    public static final class Builder {
        private final RdmaRuntime runtime;
        private long maximumRegions = 1024;
        private long maximumBytes;
        private Duration expireAfterAccess;

        private Builder(RdmaRuntime runtime) {
            this.runtime = runtime;
        }

        /** At most this many regions (1..2^30); the default bound. */
        public Builder maximumRegions(long count) {
            if (count < 1 || count > (1L << 30)) {
                throw new RdmaException(Status.INVALID_PARAMETER, "maximumRegions must be 1..2^30: " + count);
            }
            this.maximumRegions = count;
            return this;
        }

        /** At most this many registered bytes in all, instead of a region count. */
        public Builder maximumBytes(long bytes) {
            if (bytes < 1) {
                throw new RdmaException(Status.INVALID_PARAMETER, "maximumBytes must be positive: " + bytes);
            }
            this.maximumBytes = bytes;
            return this;
        }

        /** Evicts regions not used for this long. */
        public Builder expireAfterAccess(Duration idle) {
            this.expireAfterAccess = Validation.timeout(idle, "expireAfterAccess");
            return this;
        }

        /** Builds the cache. */
        public RegistrationCache build() {
            return new RegistrationCache(this);
        }
    }
}
