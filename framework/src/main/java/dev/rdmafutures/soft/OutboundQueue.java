package dev.rdmafutures.soft;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;

/**
 * The bytes queued for one socket, written with gathering writes: FPDU headers and trailers in pooled scratch
 * buffers, payloads as views of registered memory (never copied), MPA messages as they are. Scratch buffers and
 * views go back to their pools once the socket has taken them, so a steady data path allocates nothing. Confined
 * to the poller thread.
 */
final class OutboundQueue {
    /**
     * Room for the largest FPDU header (length, DDP untagged header, Read Request: 48 bytes) with an inlined payload
     * of up to {@link FpduWriter#INLINE_PAYLOAD} bytes, pad and CRC; or for a trailer.
     */
    static final int SCRATCH = 128;
    /** Buffers per gathering write: a whole FPDU of {@link SoftDevice#MAX_SGE} views, header and trailer, and more. */
    private static final int GATHER = 2 * SoftDevice.MAX_SGE;
    /** Regions whose idle views are kept: several operations' worth of {@link SoftDevice#MAX_SGE} regions each. */
    private static final int MAX_POOLED_REGIONS = 4 * SoftDevice.MAX_SGE;
    private static final Object SCRATCH_OWNER = new Object();
    private static final Object COPY_OWNER = new Object();
    /** Payload copies come in two sizes: most Read Responses are small, the largest FPDU needs 64 KiB. */
    static final int SMALL_COPY = 4096;
    private static final int LARGE_COPY = 65536;

    private ByteBuffer[] ring = new ByteBuffer[128];
    /** Per ring slot: SCRATCH_OWNER, the SoftRegion a view belongs to, or null for a buffer we do not pool. */
    private Object[] owners = new Object[128];
    private int head;
    private int size;
    private final ByteBuffer[] gather = new ByteBuffer[GATHER];
    private final ArrayDeque<ByteBuffer> scratch = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> smallCopies = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> largeCopies = new ArrayDeque<>();
    private final IdentityHashMap<SoftRegion, ArrayDeque<ByteBuffer>> views = new IdentityHashMap<>();
    private long enqueuedBytes;
    private long flushedBytes;

    /** A cleared scratch buffer of {@value #SCRATCH} bytes, to fill and {@link #add}. */
    ByteBuffer scratch() {
        ByteBuffer b = scratch.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(SCRATCH); // direct: NIO copies heap buffers
    }

    /** A cleared pooled direct buffer with room for {@code length} (at most 64 KiB) payload bytes to copy. */
    ByteBuffer copyBuffer(int length) {
        ArrayDeque<ByteBuffer> pool = length <= SMALL_COPY ? smallCopies : largeCopies;
        ByteBuffer b = pool.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(length <= SMALL_COPY ? SMALL_COPY : LARGE_COPY);
    }

    /** Queues a filled (flipped) {@link #copyBuffer} buffer; it goes back to its pool once the socket took it. */
    void addCopy(ByteBuffer filled) {
        add(filled, COPY_OWNER);
    }

    /** Queues a filled (flipped) {@link #scratch()} buffer. */
    void addScratch(ByteBuffer filled) {
        add(filled, SCRATCH_OWNER);
    }

    /** Queues {@code length} bytes of {@code region} from {@code offset}, without copying them; returns the view. */
    ByteBuffer addView(SoftRegion region, int offset, int length) {
        ArrayDeque<ByteBuffer> free = views.get(region);
        ByteBuffer view = free == null ? null : free.poll();
        if (view == null) {
            view = region.bytes();
        }
        view.clear().position(offset).limit(offset + length);
        add(view, region);
        return view;
    }

    /** Queues a buffer the caller gives up (handshake messages, Terminates). */
    void add(ByteBuffer bytes) {
        add(bytes, null);
    }

    private void add(ByteBuffer bytes, Object owner) {
        if (size == ring.length) {
            grow();
        }
        int slot = (head + size) & (ring.length - 1);
        ring[slot] = bytes;
        owners[slot] = owner;
        size++;
        enqueuedBytes += bytes.remaining();
    }

    private void grow() {
        ByteBuffer[] bigger = new ByteBuffer[ring.length * 2];
        Object[] biggerOwners = new Object[ring.length * 2];
        for (int i = 0; i < size; i++) {
            bigger[i] = ring[(head + i) & (ring.length - 1)];
            biggerOwners[i] = owners[(head + i) & (ring.length - 1)];
        }
        ring = bigger;
        owners = biggerOwners;
        head = 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Every byte ever queued. */
    long enqueuedBytes() {
        return enqueuedBytes;
    }

    /** Every byte the socket has taken. */
    long flushedBytes() {
        return flushedBytes;
    }

    /**
     * Writes as much as the socket takes; returns false if it stopped taking bytes before the queue was empty.
     */
    boolean writeTo(GatheringByteChannel channel) throws IOException {
        while (size > 0) {
            int n = Math.min(size, GATHER);
            long offered = 0;
            for (int i = 0; i < n; i++) {
                ByteBuffer b = ring[(head + i) & (ring.length - 1)];
                gather[i] = b;
                offered += b.remaining();
            }
            // One buffer (a small FPDU): a plain write, cheaper than a gathering one in the JDK and the kernel.
            long written = n == 1 ? channel.write(gather[0]) : channel.write(gather, 0, n);
            flushedBytes += written;
            while (size > 0 && !ring[head].hasRemaining()) {
                release();
            }
            if (written < offered) {
                return false;
            }
        }
        return true;
    }

    /** Drops queued bytes not yet started; a partly written buffer is kept so the stream stays framed. */
    void dropUnsent() {
        boolean keepHead = size > 0 && ring[head].position() > 0 && ring[head].hasRemaining();
        int keep = keepHead ? 1 : 0;
        while (size > keep) {
            int last = (head + size - 1) & (ring.length - 1);
            ring[last] = null;
            owners[last] = null;
            size--;
        }
        enqueuedBytes = flushedBytes + (keepHead ? ring[head].remaining() : 0);
    }

    /** Forgets everything (the socket is gone). */
    void clear() {
        while (size > 0) {
            release();
        }
    }

    private void release() {
        ByteBuffer b = ring[head];
        Object owner = owners[head];
        ring[head] = null;
        owners[head] = null;
        head = (head + 1) & (ring.length - 1);
        size--;
        if (owner == SCRATCH_OWNER) {
            scratch.push(b);
        } else if (owner == COPY_OWNER) {
            (b.capacity() == SMALL_COPY ? smallCopies : largeCopies).push(b);
        } else if (owner instanceof SoftRegion region) {
            ArrayDeque<ByteBuffer> free = views.get(region);
            if (free == null) {
                if (views.size() >= MAX_POOLED_REGIONS) {
                    views.clear(); // regions come and go: forget the old ones' views
                }
                free = new ArrayDeque<>();
                views.put(region, free);
            }
            free.push(b);
        }
    }
}
