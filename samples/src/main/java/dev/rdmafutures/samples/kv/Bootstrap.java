package dev.rdmafutures.samples.kv;

import dev.rdmafutures.RemoteBuffer;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * What the server tells each client in its accept's private data ({@value #BYTES} bytes, within every transport's
 * limit): the index's slot count, the largest value, and the index and heap as remote buffers. The client's connect
 * carries {@link #hello(int) its window}, from which the server sizes the connection's initiator queue for acks.
 *
 * @param capacity index slots
 * @param maxValue the largest value in bytes
 * @param index    the index region
 * @param heap     the value heap region; empty (length 0) when values are inline in the index
 */
record Bootstrap(int capacity, int maxValue, RemoteBuffer index, RemoteBuffer heap) {
    static final int BYTES = 8 + 2 * RemoteBuffer.ENCODED_LENGTH + 4;
    private static final int SERVER_MAGIC = 0x4b565331; // "KVS1"
    private static final int CLIENT_MAGIC = 0x4b564331; // "KVC1"

    byte[] encode() {
        return ByteBuffer.allocate(BYTES).putInt(SERVER_MAGIC).putInt(capacity).putInt(maxValue)
                .put(index.encode()).put(heap.encode()).array();
    }

    /** Decodes a server's accept private data; transports may pad it. */
    static Bootstrap decode(byte[] privateData) {
        ByteBuffer b = ByteBuffer.wrap(privateData);
        if (privateData.length < BYTES || b.getInt() != SERVER_MAGIC) {
            throw new IllegalArgumentException("the peer is not a KV server (" + privateData.length
                    + " bytes of private data)");
        }
        int capacity = b.getInt();
        int maxValue = b.getInt();
        byte[] remote = new byte[RemoteBuffer.ENCODED_LENGTH];
        b.get(remote);
        RemoteBuffer index = RemoteBuffer.decode(remote);
        b.get(remote);
        return new Bootstrap(capacity, maxValue, index, RemoteBuffer.decode(remote));
    }

    /** A client's connect private data. */
    static byte[] hello(int window) {
        return ByteBuffer.allocate(8).putInt(CLIENT_MAGIC).putInt(window).array();
    }

    /** The window of a client's connect private data, empty when it is not one. */
    static Optional<Integer> window(byte[] privateData) {
        ByteBuffer b = ByteBuffer.wrap(privateData);
        if (privateData.length < 8 || b.getInt() != CLIENT_MAGIC) {
            return Optional.empty();
        }
        int window = b.getInt();
        return window >= 1 && window <= 4096 ? Optional.of(window) : Optional.empty();
    }
}
