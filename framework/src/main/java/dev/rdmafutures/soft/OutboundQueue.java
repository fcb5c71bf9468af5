package dev.rdmafutures.soft;

import dev.rdmafutures.soft.mpa.FpduFraming;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;

/**
 * The bytes queued for one socket, written with gathering writes: small whole FPDUs framed back to back in frame
 * buffers, the headers and trailers of larger ones in scratch buffers (both from the poller's {@link DirectBuffers}),
 * payloads as views of registered memory (never copied), MPA messages as they are. Pooled buffers and views go back
 * to their pools once the socket has taken them, so a steady data path allocates nothing. Confined to the poller
 * thread.
 *
 * <p>Small FPDUs queued one after another (sixteen Read Requests, their Read Responses) are framed straight into the
 * queue's last frame buffer while the socket has not started on it, so such a burst is one buffer with no per-FPDU
 * bookkeeping, which the socket takes as it is once it is past {@value #PACK_LIMIT} bytes.
 *
 * <p>Other runs of small buffers (a header before a view, the trailer after it, a short frame buffer) would be as many
 * iovecs, and the kernel spends per iovec: a write packs each run of small buffers into one contiguous piece of the
 * poller's pack buffer first, so the socket takes such a run as one buffer, and large payloads still go as views.
 * The queued buffers keep their own positions (advanced by what the socket took), so a partial write or
 * {@link #dropUnsent} sees the stream as queued.
 */
final class OutboundQueue {
    /** Buffers per gathering write: a whole FPDU of {@link SoftDevice#MAX_SGE} views, header and trailer, and more. */
    private static final int GATHER = 2 * SoftDevice.MAX_SGE;
    /** Buffers of at most this many bytes are packed: headers, trailers, small FPDUs, short payload views. */
    private static final int PACK_LIMIT = 256;
    /** Regions whose idle views are kept: several operations' worth of {@link SoftDevice#MAX_SGE} regions each. */
    private static final int MAX_POOLED_REGIONS = 4 * SoftDevice.MAX_SGE;
    /** The owner of the buffers that go back to {@link DirectBuffers}. */
    private static final Object POOLED = new Object();
    /** The owner of pooled frame buffers, which hold whole FPDUs only (see {@link #dropUnsent}). */
    private static final Object FRAMES = new Object();
    /** The owner of pooled scratch buffers that end an FPDU (see {@link #dropUnsent}). */
    private static final Object TRAILER = new Object();

    private ByteBuffer[] ring = new ByteBuffer[128];
    /**
     * Per ring slot: POOLED, FRAMES or TRAILER (pooled buffers), the SoftRegion a view belongs to, or null for a
     * buffer we do not pool.
     */
    private Object[] owners = new Object[128];
    private int head;
    private int size;
    private final ByteBuffer[] gather = new ByteBuffer[GATHER];
    /** What each queued buffer of the current write offered, and whether it went packed. */
    private final int[] offered = new int[GATHER];
    private final boolean[] packed = new boolean[GATHER];
    private final DirectBuffers buffers;
    private final IdentityHashMap<SoftRegion, ArrayDeque<ByteBuffer>> views = new IdentityHashMap<>();
    private long enqueuedBytes;
    private long flushedBytes;
    /** The last queued entry while it is a frame buffer the socket has not started on, else null. */
    private ByteBuffer openFrames;
    /** Where the FPDU being framed by the caller of {@link #frame()} starts in {@link #openFrames}. */
    private int frameStart;
    /** {@link #openFrames} is in write mode for a caller of {@link #frame()} that has not committed yet. */
    private boolean framing;

    OutboundQueue(DirectBuffers buffers) {
        this.buffers = buffers;
    }

    /**
     * A buffer in write mode, positioned where a whole FPDU of at most {@value DirectBuffers#SCRATCH} bytes is to be
     * framed from, to fill and hand to {@link #commitFrame} before anything else is queued: the queue's open frame
     * buffer when it has room, else a fresh one.
     */
    ByteBuffer frame() {
        abandonFrame();
        ByteBuffer open = openFrames;
        if (open != null && open.capacity() - open.limit() >= DirectBuffers.SCRATCH) {
            frameStart = open.limit();
            framing = true;
            return open.limit(open.capacity()).position(frameStart);
        }
        openFrames = null;
        frameStart = 0;
        return buffers.frames();
    }

    /** Queues the FPDU framed into {@code frames} (as {@link #frame()} gave it, position at the FPDU's end). */
    void commitFrame(ByteBuffer frames) {
        if (frames == openFrames) {
            enqueuedBytes += frames.position() - frameStart;
            frames.flip(); // the socket has not started on it: its position was 0
            framing = false;
        } else {
            add(frames.flip(), FRAMES);
            openFrames = frames;
        }
    }

    /** A cleared scratch buffer of {@value DirectBuffers#SCRATCH} bytes, to fill and {@link #addScratch}. */
    ByteBuffer scratch() {
        return buffers.scratch();
    }

    /** A cleared pooled direct buffer with room for {@code length} (at most 64 KiB) payload bytes to copy. */
    ByteBuffer copyBuffer(int length) {
        return buffers.copy(length);
    }

    /** Queues a filled (flipped) {@link #copyBuffer} buffer; it goes back to its pool once the socket took it. */
    void addCopy(ByteBuffer filled) {
        add(filled, POOLED);
    }

    /** Queues a filled (flipped) {@link #scratch()} buffer that starts or continues an FPDU. */
    void addScratch(ByteBuffer filled) {
        add(filled, POOLED);
    }

    /** Queues a filled (flipped) {@link #scratch()} buffer that ends an FPDU: its pad and CRC. */
    void addTrailer(ByteBuffer filled) {
        add(filled, TRAILER);
    }

    /**
     * Puts the open frame buffer back as it was queued if a caller of {@link #frame()} failed before committing, so
     * that what it framed is forgotten and the queued FPDUs stay as they were.
     */
    private void abandonFrame() {
        if (framing) {
            framing = false;
            openFrames.limit(frameStart).position(0);
        }
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
        abandonFrame();
        openFrames = null;
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
        abandonFrame();
        PackBuffer pack = buffers.pack(GATHER);
        while (size > 0) {
            int entries = Math.min(size, GATHER);
            int n = 0;
            long total = 0;
            pack.reset();
            for (int i = 0; i < entries; i++) {
                ByteBuffer b = ring[(head + i) & (ring.length - 1)];
                int bytes = b.remaining();
                offered[i] = bytes;
                total += bytes;
                packed[i] = bytes <= PACK_LIMIT && pack.fits(bytes);
                if (!packed[i]) {
                    gather[n++] = b;
                } else if (i > 0 && packed[i - 1]) {
                    pack.append(b); // continues the run the last gathered buffer is
                } else {
                    gather[n++] = pack.startRun(b);
                }
            }
            // One buffer (a burst packed whole, or a lone FPDU): a plain write, cheaper than a gathering one.
            long written = n == 1 ? channel.write(gather[0]) : channel.write(gather, 0, n);
            flushedBytes += written;
            consume(entries, written);
            if (openFrames != null && openFrames.position() != 0) {
                openFrames = null; // the socket started on it (or took it whole, and it went back to its pool)
            }
            if (written < total) {
                return false;
            }
        }
        return true;
    }

    /**
     * Advances the first {@code entries} queued buffers past the {@code written} bytes the socket took, in order
     * (the socket moved the unpacked ones itself), and releases those it took whole.
     */
    private void consume(int entries, long written) {
        long left = written;
        for (int i = 0; i < entries && left > 0; i++) {
            int took = (int) Math.min(offered[i], left);
            if (packed[i]) {
                ByteBuffer b = ring[(head + i) & (ring.length - 1)];
                b.position(b.position() + took);
            }
            left -= took;
        }
        while (size > 0 && !ring[head].hasRemaining()) {
            release();
        }
    }

    /**
     * Drops queued bytes not yet started. The FPDU the socket is in the middle of is kept whole, to its trailer, so
     * that what follows (a Terminate) is framed; of a frame buffer, only up to that FPDU's end.
     */
    void dropUnsent() {
        abandonFrame();
        openFrames = null;
        int keep = 0;
        if (size > 0 && ring[head].position() > 0 && ring[head].hasRemaining()) {
            Object owner = owners[head];
            if (owner == FRAMES) {
                ByteBuffer b = ring[head];
                int end = 0;
                while (end < b.position()) {
                    end += FpduFraming.fpduLength(b.getShort(end) & 0xffff);
                }
                b.limit(end);
                keep = b.hasRemaining() ? 1 : 0;
            } else {
                // A whole message (null), or a trailer, ends where it ends; a header, view or copy goes on to the
                // FPDU's trailer, which FpduWriter queued with it.
                keep = 1;
                while (owner != null && owner != TRAILER && keep < size) {
                    owner = owners[(head + keep) & (ring.length - 1)];
                    keep++;
                }
            }
        }
        long kept = 0;
        for (int i = 0; i < keep; i++) {
            kept += ring[(head + i) & (ring.length - 1)].remaining();
        }
        while (size > keep) {
            int last = (head + size - 1) & (ring.length - 1);
            ring[last] = null;
            owners[last] = null;
            size--;
        }
        enqueuedBytes = flushedBytes + kept;
    }

    /** Forgets everything (the socket is gone). */
    void clear() {
        openFrames = null;
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
        if (owner == POOLED || owner == FRAMES || owner == TRAILER) {
            buffers.release(b);
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
