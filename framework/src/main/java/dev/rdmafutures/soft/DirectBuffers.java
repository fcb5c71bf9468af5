package dev.rdmafutures.soft;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The direct buffers the sockets of one poller write from and read into: small whole FPDUs framed back to back
 * ({@link #frames()}), the headers and trailers of larger ones ({@link #SCRATCH} bytes), payload copies (4 KiB or
 * 64 KiB) and the staging an inbound stream is parsed in
 * ({@link #STAGING} bytes). Shared by every connection of the poller and confined to its thread, so a connection
 * holds none while it is idle, and the buffers kept for reuse are capped per poller: past the cap a returned buffer
 * is left to the garbage collector. A steady data path still allocates nothing.
 */
final class DirectBuffers {
    /**
     * Room for the largest FPDU framed whole (length, DDP untagged header, Read Request: 48 bytes, or a header with a
     * payload of up to {@link FpduWriter#INLINE_PAYLOAD} bytes, pad and CRC): a scratch buffer's size, and the room a
     * frame buffer must have left to take one more FPDU. Or for a trailer.
     */
    static final int SCRATCH = 128;
    /** Payload copies come in two sizes: most Read Responses are small, the largest FPDU needs 64 KiB. */
    static final int SMALL_COPY = 4096;
    static final int LARGE_COPY = 65536;
    /** Inbound staging: a burst of small FPDUs is read with one call. */
    static final int STAGING = 8 * 1024;
    /** Buffers kept for reuse, per size: 4 MiB of large copies, 1 MiB of small ones and frame buffers in flight. */
    private static final int KEPT_SCRATCH = 4096;
    private static final int KEPT_SMALL = 256;
    private static final int KEPT_LARGE = 64;
    /** A connection holds staging only while it has part of an FPDU; the poller parses one stream at a time. */
    private static final int KEPT_STAGING = 16;

    private final ArrayDeque<ByteBuffer> scratch = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> smallCopies = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> largeCopies = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> staging = new ArrayDeque<>();
    private PackBuffer pack;

    /** A cleared buffer of {@value #SCRATCH} bytes. Direct: NIO copies heap buffers into direct ones to write. */
    ByteBuffer scratch() {
        ByteBuffer b = scratch.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(SCRATCH);
    }

    /** A cleared buffer of {@value #SMALL_COPY} bytes that small FPDUs are framed in, back to back. */
    ByteBuffer frames() {
        return copy(SMALL_COPY);
    }

    /** A cleared buffer with room for {@code length} (at most 64 KiB) bytes. */
    ByteBuffer copy(int length) {
        boolean small = length <= SMALL_COPY;
        ByteBuffer b = (small ? smallCopies : largeCopies).poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(small ? SMALL_COPY : LARGE_COPY);
    }

    /** An empty staging buffer of {@value #STAGING} bytes in read mode (position and limit 0). */
    ByteBuffer staging() {
        ByteBuffer b = staging.poll();
        return (b != null ? b.clear() : ByteBuffer.allocateDirect(STAGING)).flip();
    }

    /**
     * The poller's one {@link PackBuffer}, for writes of up to {@code runs} packed runs: a socket write uses it and is
     * done with it before the next socket's.
     */
    PackBuffer pack(int runs) {
        if (pack == null) {
            pack = new PackBuffer(runs);
        }
        return pack;
    }

    /** Takes back a buffer from {@link #frames()}, {@link #scratch()}, {@link #copy(int)} or {@link #staging()}. */
    void release(ByteBuffer b) {
        switch (b.capacity()) {
            case SCRATCH -> keep(scratch, b, KEPT_SCRATCH);
            case SMALL_COPY -> keep(smallCopies, b, KEPT_SMALL);
            case LARGE_COPY -> keep(largeCopies, b, KEPT_LARGE);
            case STAGING -> keep(staging, b, KEPT_STAGING);
            default -> throw new IllegalArgumentException("not one of ours: " + b);
        }
    }

    private static void keep(ArrayDeque<ByteBuffer> pool, ByteBuffer b, int most) {
        if (pool.size() < most) {
            pool.push(b);
        }
    }
}
