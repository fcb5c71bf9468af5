package dev.rdmafutures.netty;

import dev.rdmafutures.RemoteBuffer;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The byte stream's handshake, carried at the front of the connect and accept private data: a magic number and
 * version, then the sender's receive depth (its initial credits for the peer) and receive buffer size (the largest
 * message the peer may send), then the sender's probe target (address, length, token; length 0 when it offers none),
 * the few bytes the peer READs to learn whether this side is alive when it has heard nothing for a while
 * ({@link ByteStream#probe()}). The application's own private data follows it.
 *
 * @param receiveDepth    receives the sender keeps posted
 * @param bufferSize      bytes of each, header included
 * @param probe           what the peer may READ to probe the sender's liveness; null when it offers nothing
 * @param applicationData the application's private data after the hello
 */
record StreamHello(int receiveDepth, int bufferSize, RemoteBuffer probe, byte[] applicationData) {
    /** "RFNS": RdmaFutures Netty stream. */
    static final int MAGIC = 0x52464E53;
    /** 2: the probe target joined the hello. */
    static final byte VERSION = 2;
    static final int BYTES = 28;

    /** A hello that offers no probe target: the peer then never probes this side. */
    static byte[] encode(StreamSettings settings, byte[] applicationData) {
        return encode(settings, null, applicationData);
    }

    static byte[] encode(StreamSettings settings, RemoteBuffer probe, byte[] applicationData) {
        byte[] data = applicationData == null ? new byte[0] : applicationData;
        ByteBuffer out = ByteBuffer.allocate(BYTES + data.length).putInt(MAGIC).put(VERSION).put((byte) 0)
                .putShort((short) settings.receiveDepth()).putInt(settings.bufferSize());
        if (probe == null) {
            out.putLong(0).putInt(0).putInt(0);
        } else {
            out.putLong(probe.address()).putInt(probe.length()).putInt(probe.token());
        }
        return out.put(data).array();
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
        long probeAddress = in.getLong();
        int probeLength = in.getInt();
        int probeToken = in.getInt();
        if (probeLength < 0) {
            return null;
        }
        RemoteBuffer probe = probeLength == 0 ? null : new RemoteBuffer(probeAddress, probeLength, probeToken);
        return new StreamHello(depth, bufferSize, probe, Arrays.copyOfRange(privateData, BYTES, privateData.length));
    }
}
