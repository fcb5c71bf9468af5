package dev.rdmafutures.netty;

import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default allocator of the channels on one RDMA event loop: direct buffers of 64 KiB to 1 MiB are carved from
 * memory the loop's runtime registered, so that the stream SENDs a large write from where it lies instead of copying
 * it into its send buffers ({@link ByteStream}); smaller and larger ones, heap buffers, and anything past the loop's
 * budget come from Netty's default allocator (its pooled buffers are recycled, where a buffer of this allocator is a
 * new object: below 64 KiB that costs more than the copy it saves). Any thread may allocate and release.
 *
 * <p>Memory comes in slabs of {@value #SLAB_BYTES} bytes, each registered once and cut into blocks of one power of
 * two, 64 KiB to 1 MiB; a released buffer's block goes back to its class's free list. The loop registers at most
 * {@value #MAX_SLABS} slabs, and a slab serves one block size for good (16 slabs of 64 KiB blocks leave 1 MiB
 * requests to the default allocator). After the loop's runtime closed, or a slab could not be registered, new buffers
 * come from the default allocator; buffers still held stay valid memory. Without {@code Unsafe} every buffer comes
 * from the default allocator. Its buffers are tracked by Netty's leak detector like the default allocator's.
 */
final class RegisteredBufferAllocator extends AbstractByteBufAllocator {
    private static final Logger LOG = LoggerFactory.getLogger(RegisteredBufferAllocator.class);
    static final int SLAB_BYTES = 4 << 20;
    static final int MAX_SLABS = 16;
    private static final int MIN_BLOCK_SHIFT = 16;
    static final int MIN_CAPACITY = 1 << MIN_BLOCK_SHIFT;
    private static final int MAX_BLOCK_SHIFT = 20;
    static final int MAX_CAPACITY = 1 << MAX_BLOCK_SHIFT;

    private final RdmaRuntime runtime;
    private final ByteBufAllocator fallback;
    /** Copy on write under {@code this}: the zero-copy lookup reads it without a lock. */
    private volatile Slab[] slabs = new Slab[0];
    private final FreeList[] free = new FreeList[MAX_BLOCK_SHIFT - MIN_BLOCK_SHIFT + 1];
    private volatile boolean closed;
    /** A slab could not be had once: no more are tried. */
    private boolean growthFailed;

    RegisteredBufferAllocator(RdmaRuntime runtime, ByteBufAllocator fallback) {
        super(true);
        this.runtime = runtime;
        this.fallback = fallback;
        for (int i = 0; i < free.length; i++) {
            free[i] = new FreeList();
        }
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return fallback.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        Block block = take(initialCapacity);
        if (block == null) {
            return fallback.directBuffer(initialCapacity, maxCapacity);
        }
        return toLeakAwareBuffer(new RegisteredByteBuf(this, block, maxCapacity));
    }

    /** Where the buffers this allocator does not carve come from. */
    ByteBufAllocator fallback() {
        return fallback;
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /**
     * Where {@code length} bytes at {@code address} lie in a slab of this allocator, as the slab; null when they are
     * not all in one (or the slabs are no longer registered).
     */
    Slab slabOf(long address, int length) {
        if (closed) {
            return null;
        }
        for (Slab slab : slabs) {
            if (address >= slab.address && address + length <= slab.address + SLAB_BYTES) {
                return slab;
            }
        }
        return null;
    }

    /** The runtime is closing: its regions go with it, so no write may be sent from them any more. */
    void close() {
        closed = true;
    }

    /** Bytes in blocks handed out and not yet back; for tests. */
    synchronized long bytesInUse() {
        long total = 0;
        for (Slab slab : slabs) {
            total += SLAB_BYTES;
        }
        for (int i = 0; i < free.length; i++) {
            total -= (long) free[i].count << (MIN_BLOCK_SHIFT + i);
        }
        return total;
    }

    /**
     * A block of at least {@code capacity} bytes, or null when none can be had: outside the sizes served, after the
     * close, or without {@code Unsafe} (Netty's unsafe buffers need it; Netty leaves it off on Java 25 and later).
     */
    private Block take(int capacity) {
        if (closed || capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || !PlatformDependent.hasUnsafe()) {
            return null;
        }
        int shift = Math.max(MIN_BLOCK_SHIFT, 32 - Integer.numberOfLeadingZeros(capacity - 1));
        int cls = shift - MIN_BLOCK_SHIFT;
        synchronized (this) {
            if (free[cls].count == 0 && !grow(cls, shift)) {
                return null;
            }
            int id = free[cls].pop();
            Slab slab = slabs[id >>> 16];
            int offset = (id & 0xFFFF) << shift;
            ByteBuffer memory = slab.memory.duplicate().position(offset).limit(offset + capacity).slice();
            return new Block(this, id, cls, memory, slab.address + offset);
        }
    }

    private boolean grow(int cls, int shift) {
        Slab[] current = slabs;
        if (current.length == MAX_SLABS) {
            return false;
        }
        if (growthFailed) {
            return false;
        }
        ByteBuffer memory;
        MemoryRegion region;
        try {
            memory = ByteBuffer.allocateDirect(SLAB_BYTES);
            region = runtime.register(memory);
        } catch (RdmaException | OutOfMemoryError e) {
            // A closed runtime, the device's limits, or no direct memory left: the default allocator serves from now
            // on, rather than every large allocation trying (and failing) again under this lock.
            growthFailed = true;
            LOG.debug("registered buffers stay at {} slabs: {}", current.length, e.toString());
            return false;
        }
        int index = current.length;
        Slab[] next = Arrays.copyOf(current, index + 1);
        next[index] = new Slab(region, memory, PlatformDependent.directBufferAddress(memory));
        slabs = next; // published whole: slabOf reads it without the lock
        for (int block = (SLAB_BYTES >>> shift) - 1; block >= 0; block--) {
            free[cls].push(index << 16 | block);
        }
        return true;
    }

    private synchronized void release(int id, int cls) {
        free[cls].push(id);
    }

    /** One registered slab: its region and where its memory starts. */
    record Slab(MemoryRegion region, ByteBuffer memory, long address) {
    }

    private static final class FreeList {
        private int[] ids = new int[64];
        private int count;

        void push(int id) {
            if (count == ids.length) {
                ids = Arrays.copyOf(ids, 2 * count);
            }
            ids[count++] = id;
        }

        int pop() {
            return ids[--count];
        }
    }

    /** A block taken from a slab, as Netty's cleanable buffer: cleaning it returns the block. */
    private static final class Block implements CleanableDirectBuffer {
        private final RegisteredBufferAllocator owner;
        private final int id;
        private final int cls;
        private final ByteBuffer memory;
        private final long address;
        private boolean cleaned;

        Block(RegisteredBufferAllocator owner, int id, int cls, ByteBuffer memory, long address) {
            this.owner = owner;
            this.id = id;
            this.cls = cls;
            this.memory = memory;
            this.address = address;
        }

        @Override
        public ByteBuffer buffer() {
            return memory;
        }

        @Override
        public void clean() {
            if (!cleaned) {
                cleaned = true;
                owner.release(id, cls);
            }
        }

        @Override
        public boolean hasMemoryAddress() {
            return true;
        }

        @Override
        public long memoryAddress() {
            return address;
        }
    }

    /**
     * A Netty direct buffer over blocks: it starts on one and moves to a new one when its capacity changes. Netty's
     * buffer never frees the memory it was made with, so this returns the first block itself (when it moves off it or
     * is deallocated on it); the later ones are cleaned by Netty.
     */
    private static final class RegisteredByteBuf extends UnpooledUnsafeDirectByteBuf {
        private Block first;

        RegisteredByteBuf(RegisteredBufferAllocator alloc, Block block, int maxCapacity) {
            super(alloc, false, block.buffer(), maxCapacity);
            this.first = block;
            setIndex(0, 0); // the wrapping constructor marks the given bytes written
        }

        @Override
        protected CleanableDirectBuffer allocateDirectBuffer(int capacity) {
            Block block = ((RegisteredBufferAllocator) alloc()).take(capacity);
            return block != null ? block : PlatformDependent.allocateDirect(capacity);
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
            boolean moves = newCapacity != capacity();
            super.capacity(newCapacity);
            if (moves) {
                releaseFirst();
            }
            return this;
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            releaseFirst();
        }

        private void releaseFirst() {
            Block block = first;
            if (block != null) {
                first = null;
                block.clean();
            }
        }
    }
}
