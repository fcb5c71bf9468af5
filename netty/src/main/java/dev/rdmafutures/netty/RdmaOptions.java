package dev.rdmafutures.netty;

import dev.rdmafutures.ReadLimits;
import io.netty.channel.ChannelOption;

/** The {@link RdmaChannelOption} values of one channel, shared by the client and server configurations. */
final class RdmaOptions {
    static final ChannelOption<?>[] ALL = {RdmaChannelOption.PRIVATE_DATA, RdmaChannelOption.READ_LIMITS,
        RdmaChannelOption.STREAM_BUFFER_SIZE, RdmaChannelOption.STREAM_RECEIVE_DEPTH,
        RdmaChannelOption.STREAM_SEND_DEPTH};

    private volatile byte[] privateData = new byte[0];
    private volatile ReadLimits readLimits;
    /**
     * Post the stream's receives before connecting on every adapter, not only where a Send that finds no receive ends
     * the connection ({@link ReceiveRing}): lets the tests run that path on {@code soft}. Not one of {@link #ALL}.
     */
    static final ChannelOption<Boolean> PREPOSTED_RECEIVES = ChannelOption.valueOf(RdmaOptions.class,
            "PREPOSTED_RECEIVES");

    private volatile StreamSettings stream = StreamSettings.DEFAULT;
    private volatile boolean prepostedReceives;

    /** The option's value, or null when {@code option} is not one of {@link RdmaChannelOption}'s. */
    Object get(ChannelOption<?> option) {
        if (option == RdmaChannelOption.PRIVATE_DATA) {
            return privateData.clone();
        } else if (option == RdmaChannelOption.READ_LIMITS) {
            return readLimits;
        } else if (option == RdmaChannelOption.STREAM_BUFFER_SIZE) {
            return stream.bufferSize();
        } else if (option == RdmaChannelOption.STREAM_RECEIVE_DEPTH) {
            return stream.receiveDepth();
        } else if (option == RdmaChannelOption.STREAM_SEND_DEPTH) {
            return stream.sendDepth();
        } else if (option == PREPOSTED_RECEIVES) {
            return prepostedReceives;
        }
        return null;
    }

    /**
     * Sets the option if it is one of {@link RdmaChannelOption}'s; returns false when it is not.
     *
     * @throws IllegalArgumentException for a value out of range (nothing is changed)
     */
    boolean set(ChannelOption<?> option, Object value) {
        if (option == RdmaChannelOption.PRIVATE_DATA) {
            privateData = ((byte[]) value).clone();
        } else if (option == RdmaChannelOption.READ_LIMITS) {
            readLimits = (ReadLimits) value;
        } else if (option == RdmaChannelOption.STREAM_BUFFER_SIZE) {
            stream = new StreamSettings((Integer) value, stream.receiveDepth(), stream.sendDepth());
        } else if (option == RdmaChannelOption.STREAM_RECEIVE_DEPTH) {
            stream = new StreamSettings(stream.bufferSize(), (Integer) value, stream.sendDepth());
        } else if (option == RdmaChannelOption.STREAM_SEND_DEPTH) {
            stream = new StreamSettings(stream.bufferSize(), stream.receiveDepth(), (Integer) value);
        } else if (option == PREPOSTED_RECEIVES) {
            prepostedReceives = (Boolean) value;
        } else {
            return false;
        }
        return true;
    }

    byte[] privateData() {
        return privateData.clone();
    }

    ReadLimits readLimits() {
        return readLimits;
    }

    StreamSettings stream() {
        return stream;
    }

    boolean prepostedReceives() {
        return prepostedReceives;
    }
}
