package dev.rdmafutures;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A peer's memory as this side addresses it: the tagged address of its first byte, its length, and the token
 * (iWARP STag, verbs rkey) that grants access. Ship it to the peer with {@link #encode()} (16 bytes, small enough
 * for private data) and rebuild it there with {@link #decode(byte[])}. Immutable.
 */
public final class RemoteBuffer {
    /** The size of {@link #encode()}'s output. */
    public static final int ENCODED_LENGTH = 16;

    private final long address;
    private final int length;
    private final int token;

    /** A remote buffer; {@code length} must not be negative. */
    public RemoteBuffer(long address, int length, int token) {
        if (length < 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, "remote buffer length is negative: " + length);
        }
        this.address = address;
        this.length = length;
        this.token = token;
    }

    /** The tagged address of the first byte. */
    public long address() {
        return address;
    }

    /** The number of bytes. */
    public int length() {
        return length;
    }

    /** The access token. */
    public int token() {
        return token;
    }

    /** address (8), length (4), token (4), big-endian. */
    public byte[] encode() {
        return ByteBuffer.allocate(ENCODED_LENGTH).putLong(address).putInt(length).putInt(token).array();
    }

    /**
     * Rebuilds a buffer from {@link #encode()}'s bytes, which may be followed by padding.
     *
     * @throws RdmaException {@link Status#INVALID_PARAMETER} for fewer than 16 bytes or a negative length
     */
    public static RemoteBuffer decode(byte[] encoded) {
        Objects.requireNonNull(encoded, "encoded");
        if (encoded.length < ENCODED_LENGTH) {
            throw new RdmaException(Status.INVALID_PARAMETER,
                    "an encoded RemoteBuffer has " + ENCODED_LENGTH + " bytes, got " + encoded.length);
        }
        ByteBuffer b = ByteBuffer.wrap(encoded);
        return new RemoteBuffer(b.getLong(), b.getInt(), b.getInt());
    }

    /** The part of this buffer from {@code offset} for {@code length} bytes. */
    public RemoteBuffer slice(int offset, int sliceLength) {
        if (offset < 0 || sliceLength < 0 || (long) offset + sliceLength > length) {
            throw new RdmaException(Status.INVALID_PARAMETER, "slice [" + offset + ", +" + sliceLength
                    + ") outside remote buffer of " + length + " bytes");
        }
        return new RemoteBuffer(address + offset, sliceLength, token);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RemoteBuffer r && r.address == address && r.length == length && r.token == token;
    }

    @Override
    public int hashCode() {
        return Objects.hash(address, length, token);
    }

    @Override
    public String toString() {
        return String.format("RemoteBuffer[address=0x%x, length=%d, token=0x%08x]", address, length, token);
    }
}
