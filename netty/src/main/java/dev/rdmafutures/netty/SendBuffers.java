package dev.rdmafutures.netty;

import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.ScatterGatherList;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * The send side of a {@link ByteStream}: its registered send buffers (slots of the peer's message size) and what each
 * SEND in flight holds. {@link #fill} moves the bytes of Netty's outbound buffer into a slot: small pieces are copied,
 * and a piece of {@value #ZERO_COPY_MIN} bytes or more that lies in memory of the loop's
 * {@link RegisteredBufferAllocator} becomes a segment of the SEND of its own, its buffer held until the SEND ends.
 * A {@link FileRegion} is transferred into the slot ({@link FileRegion#transferTo}): the JDK reads a file for a channel
 * that is not a socket in pieces of 8 KiB through a buffer of its own, so a file's bytes are copied twice on their way,
 * where Netty's socket transports hand them to the kernel's {@code sendfile}. Netty completes the write's promise when the bytes are taken from its outbound buffer, before such a SEND has read
 * them: a written buffer is the channel's, and one the application kept must not change. Confined to the stream's
 * event loop.
 */
final class SendBuffers {
    /**
     * Pieces of a write in registered memory this long or longer are sent from where they lie; shorter ones are
     * copied into the send buffer, which costs less than a segment of their own.
     */
    static final int ZERO_COPY_MIN = 4096;

    private final int slotSize;
    private final MemoryRegion region;
    /** Absolute reads and writes of headers. */
    private final ByteBuffer headers;
    /** The region as a Netty buffer that never frees its memory, for copies out of buffers without an address. */
    private final ByteBuf bytes;
    /** The region's address (0 without Netty's {@code Unsafe}): copies from buffers with one go address to address. */
    private final long address;
    private final RegisteredBufferAllocator registered;
    /** A slot's bytes, and the piece of a registered write sent from where it lies, if any. */
    private final ScatterGatherList list = new ScatterGatherList(2);
    /** What {@link FileRegion#transferTo} writes into: the free part of the slot being filled. */
    private final SlotChannel slotChannel;
    /** Why the file region after the bytes {@link #fill} returned could not be transferred; see {@link #takeFailure}. */
    private IOException failure;
    /** Per slot, the write a SEND in flight takes bytes from (retained until it ends), or null. */
    private final ByteBuf[] sentFrom;
    private final int[] free;
    private int freeCount;
    private long bytesSentInPlace;

    /**
     * Registers {@code depth} slots of {@code slotSize} bytes.
     *
     * @throws dev.rdmafutures.RdmaException when the registration fails
     */
    SendBuffers(RdmaRuntime runtime, int depth, int slotSize, RegisteredBufferAllocator registered) {
        this.slotSize = slotSize;
        this.registered = registered;
        this.region = runtime.register(ByteBuffer.allocateDirect(depth * slotSize));
        this.headers = region.buffer().duplicate();
        this.bytes = Unpooled.wrappedBuffer(region.buffer().duplicate().clear());
        this.address = copyAddress(bytes);
        this.slotChannel = new SlotChannel(region.buffer().duplicate());
        this.sentFrom = new ByteBuf[depth];
        this.free = new int[depth];
        for (int i = 0; i < depth; i++) {
            free[freeCount++] = depth - 1 - i;
        }
    }

    /**
     * Where {@code buf}'s memory starts for {@code PlatformDependent.copyMemory}, or 0 when copies must go through
     * Netty's own methods: copyMemory needs Unsafe, which Netty leaves off on Java 25 and later even where buffers
     * have addresses.
     */
    static long copyAddress(ByteBuf buf) {
        return PlatformDependent.hasUnsafe() && buf.hasMemoryAddress() ? buf.memoryAddress() : 0;
    }

    boolean hasFree() {
        return freeCount > 0;
    }

    boolean allFree() {
        return freeCount == free.length;
    }

    /** A free slot, now in use; call only while {@link #hasFree()}. */
    int take() {
        return free[--freeCount];
    }

    /**
     * Moves as many of {@code in}'s bytes as one message carries into {@code slot}, behind its header, and returns
     * the message's segments; the bytes taken are removed from {@code in}, and a file region once all of it was
     * transferred.
     *
     * @throws IOException when a file region cannot be transferred and nothing is in the slot yet (the caller frees
     *     it); when bytes are, they are returned and the failure waits in {@link #takeFailure()}
     */
    ScatterGatherList fill(int slot, ChannelOutboundBuffer in) throws IOException {
        int base = slot * slotSize;
        int position = base + ByteStream.HEADER_BYTES;
        int end = base + slotSize;
        Object message;
        while (position < end && (message = in.current()) != null) {
            if (message instanceof FileRegion file) {
                int n;
                try {
                    n = transfer(file, in, position, end);
                } catch (IOException e) {
                    if (position == base + ByteStream.HEADER_BYTES) {
                        throw e;
                    }
                    failure = e; // what came before the region goes first
                    break;
                }
                position += n;
                continue;
            }
            ByteBuf buf = (ByteBuf) message;
            int readable = buf.readableBytes();
            if (readable == 0) {
                in.remove();
                continue;
            }
            int n = Math.min(readable, end - position);
            if (n >= ZERO_COPY_MIN && registered != null && buf.hasMemoryAddress()) {
                long from = buf.memoryAddress() + buf.readerIndex();
                RegisteredBufferAllocator.Slab slab = registered.slabOf(from, n);
                if (slab != null) { // the message is full: what was copied, then this piece from where it lies
                    sentFrom[slot] = buf.retain();
                    bytesSentInPlace += n;
                    in.removeBytes(n);
                    return list.clear().add(region, base, position - base)
                            .add(slab.region(), (int) (from - slab.address()), n);
                }
            }
            if (address != 0 && buf.hasMemoryAddress()) {
                PlatformDependent.copyMemory(buf.memoryAddress() + buf.readerIndex(), address + position, n);
            } else {
                buf.getBytes(buf.readerIndex(), bytes, position, n);
            }
            position += n;
            in.removeBytes(n);
        }
        return list.clear().add(region, base, position - base);
    }

    /**
     * Transfers what of {@code file} fits between {@code position} and {@code end}, and removes it from {@code in}
     * once all of it was transferred (at once when it was already, so that {@code transferTo} is never called past its
     * count). Returns the bytes now in the slot.
     *
     * @throws IOException from {@code transferTo}, or when the region gave no byte while it had some left and the slot
     *     room: waiting would never end, since nothing but the region itself could change that
     */
    private int transfer(FileRegion file, ChannelOutboundBuffer in, int position, int end) throws IOException {
        if (file.transferred() >= file.count()) {
            in.remove();
            return 0;
        }
        slotChannel.open(position, end);
        long reported = file.transferTo(slotChannel, file.transferred());
        int n = slotChannel.written();
        if (reported > 0) {
            in.progress(reported);
        }
        if (file.transferred() >= file.count()) {
            in.remove();
        } else if (n == 0) {
            throw new IOException("a FileRegion (" + file.getClass().getName() + ") transferred no byte with "
                    + (file.count() - file.transferred()) + " of its " + file.count() + " left");
        }
        return n;
    }

    /** The failure {@link #fill} met after the bytes it returned, once; null when there was none. */
    IOException takeFailure() {
        IOException f = failure;
        failure = null;
        return f;
    }

    /** The segments of a message of {@code slot}'s header alone. */
    ScatterGatherList headerOnly(int slot) {
        return list.clear().add(region, slot * slotSize, ByteStream.HEADER_BYTES);
    }

    void putHeader(int slot, int header) {
        headers.putInt(slot * slotSize, header);
    }

    int header(int slot) {
        return headers.getInt(slot * slotSize);
    }

    /** The SEND from {@code slot} ended (or was refused): the slot is free, and what it sent from is let go. */
    void ended(int slot) {
        ByteBuf from = sentFrom[slot];
        if (from != null) {
            sentFrom[slot] = null;
            from.release();
        }
        free[freeCount++] = slot;
    }

    /** Bytes sent from where the application's writes lay, without a copy. */
    long bytesSentInPlace() {
        return bytesSentInPlace;
    }

    /** Lets go of what SENDs whose end never came held, and the registration. */
    void release() {
        for (int i = 0; i < sentFrom.length; i++) {
            if (sentFrom[i] != null) {
                sentFrom[i].release();
                sentFrom[i] = null;
            }
        }
        region.close();
    }

    /** The free part of a slot as a channel to write into; reused for every transfer, on the stream's loop. */
    private static final class SlotChannel implements WritableByteChannel {
        private final ByteBuffer view;
        private int start;

        SlotChannel(ByteBuffer view) {
            this.view = view;
        }

        void open(int position, int end) {
            view.limit(end).position(position);
            start = position;
        }

        int written() {
            return view.position() - start;
        }

        /** Takes what fits of {@code src}, leaving the rest in it, as a socket with a full send buffer does. */
        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), view.remaining());
            int limit = src.limit();
            src.limit(src.position() + n);
            view.put(src);
            src.limit(limit);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
            // the slot's memory belongs to the send buffers, which release it with their registration
        }
    }
}
