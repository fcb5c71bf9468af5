package dev.rdmafutures.netty;

import dev.rdmafutures.ReadLimits;
import io.netty.channel.ChannelOption;

/**
 * The RDMA channels' own options. Netty's socket options (TCP_NODELAY, SO_RCVBUF...) have no meaning over RDMA:
 * {@code setOption} returns false for them and Netty's bootstraps log that the option is unknown to the channel.
 * The stream options of a server channel apply to the connections it accepts: they are fixed when the connection is
 * accepted, before its child channel exists, so set them with {@code ServerBootstrap.option}, not {@code childOption}.
 */
public final class RdmaChannelOption {
    /**
     * Private data for the peer: the connect request's on a client channel, the accept's on a server channel. The
     * stream's 12-byte hello goes in front of it, so it may be that much shorter than the adapter's maximum.
     */
    public static final ChannelOption<byte[]> PRIVATE_DATA = ChannelOption.valueOf(RdmaChannelOption.class,
            "PRIVATE_DATA");
    /** The RDMA Read limits to ask for at connect (client channels); the stream itself makes no READs. */
    public static final ChannelOption<ReadLimits> READ_LIMITS = ChannelOption.valueOf(RdmaChannelOption.class,
            "READ_LIMITS");
    /** Bytes of each receive buffer, its 4-byte header included: the largest message the peer may send. Default 16 KiB. */
    public static final ChannelOption<Integer> STREAM_BUFFER_SIZE = ChannelOption.valueOf(RdmaChannelOption.class,
            "STREAM_BUFFER_SIZE");
    /**
     * Receives kept posted, the credits granted to the peer: 4 at least, default 64, at most the adapter's receive
     * depth.
     */
    public static final ChannelOption<Integer> STREAM_RECEIVE_DEPTH = ChannelOption.valueOf(RdmaChannelOption.class,
            "STREAM_RECEIVE_DEPTH");
    /** Sends kept in flight: 4 at least, default 16, at most the adapter's initiator depth. */
    public static final ChannelOption<Integer> STREAM_SEND_DEPTH = ChannelOption.valueOf(RdmaChannelOption.class,
            "STREAM_SEND_DEPTH");

    private RdmaChannelOption() {
    }
}
