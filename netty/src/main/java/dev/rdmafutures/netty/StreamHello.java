package dev.rdmafutures.netty;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The byte stream's handshake, carried at the front of the connect and accept private data: a magic number and
 * version, then the sender's receive depth (its initial credits for the peer) and receive buffer size (the largest
 * message the peer may send). The application's own private data follows it.
 *
 * @param receiveDepth    receives the sender keeps posted
 * @param bufferSize      bytes of each, header included
 * @param applicationData the application's private data after the hello
 */
record StreamHello(int receiveDepth, int bufferSize, byte[] applicationData) {
    /** "RFNS": RdmaFutures Netty stream. */
    static final int MAGIC = 0x52464E53;
    static final byte VERSION = 1;
    static final int BYTES = 12;

    static byte[] encode(StreamSettings settings, byte[] applicationData) {
        byte[] data = applicationData == null ? new byte[0] : applicationData;
        return ByteBuffer.allocate(BYTES + data.length).putInt(MAGIC).put(VERSION).put((byte) 0)
                .putShort((short) settings.receiveDepth()).putInt(settings.bufferSize()).put(data).array();
    }

    /** The peer's hello, or null when {@code privateData} is not one this version speaks (then the peer is refused). */
    static StreamHello decode(byte[] privateData) {
        if (privateData == null || privateData.length < BYTES) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(privateData);
        if (in.getInt() != MAGIC || in.get() != VERSION) {
            return null;
        }
        in.get();
        int depth = Short.toUnsignedInt(in.getShort());
        int bufferSize = in.getInt();
        if (depth < StreamSettings.MIN_DEPTH || bufferSize < StreamSettings.MIN_BUFFER_SIZE || bufferSize > StreamSettings.MAX_BUFFER_SIZE) {
            return null;
        }
        return new StreamHello(depth, bufferSize, Arrays.copyOfRange(privateData, BYTES, privateData.length));
    }
}
