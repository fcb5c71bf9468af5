package dev.rdmafutures.soft;

import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.spi.Cancellable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket under one soft connection: the channel and its selection key, the small buffer the MPA exchange is
 * read into, the {@link OutboundQueue} and its flushing, FIN once everything queued is out, and the connection's
 * one timer (handshake or disconnect). It tells the queue pair how far the socket has taken the stream and the
 * connection when writing fails. Confined to the poller thread.
 */
final class MpaTransport {
    private static final Logger LOG = LoggerFactory.getLogger(MpaTransport.class);
    /** Bytes queued from which a socket is written at once instead of at the duty cycle's flush. */
    private static final long WRITE_AT_ONCE = 64 * 1024;
    /**
     * Room for the largest MPA message; the RTR after it is smaller. Once established, the queue pair parses the
     * stream with its own staging buffer, so this stays small for every connection.
     */
    private static final int HANDSHAKE_BUFFER = MpaMessage.HEADER_LENGTH + MpaMessage.MAX_PRIVATE_DATA;

    private final SoftEventLoop loop;
    private final SocketChannel channel;
    private final SoftConnection connection;
    private final OutboundQueue outbound;
    /** In write mode (position = end of unread bytes) but while the connection drains it. */
    private final ByteBuffer inbound = ByteBuffer.allocate(HANDSHAKE_BUFFER);
    private SelectionKey key;
    private SoftQueuePair queuePair;
    private boolean closed;
    private boolean shutdownAfterFlush;
    /** Listed with the loop for its duty cycle's flush. */
    private boolean flushPending;
    /** The last write left bytes queued: the selector reports when the socket has room. */
    private boolean waitsForRoom;
    private Runnable afterFlush;
    private Cancellable timer;

    MpaTransport(SoftEventLoop loop, SocketChannel channel, SoftConnection connection) {
        this.loop = loop;
        this.channel = channel;
        this.connection = connection;
        this.outbound = new OutboundQueue(loop.directBuffers());
    }

    /**
     * TCP keepalive derived from the liveness deadline (idle for it, then 3 probes a third of it apart), so that an
     * idle connection to a peer that vanished ends too; where the platform lacks the options, plain SO_KEEPALIVE.
     */
    void keepAlive(Duration liveness) {
        int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, liveness.toSeconds()));
        try {
            channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            if (channel.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
                channel.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, seconds);
                channel.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, Math.max(1, seconds / 3));
                channel.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
            }
        } catch (IOException e) {
            LOG.debug("TCP keepalive could not be set on {}: {}", channel, e.toString());
        }
    }

    SocketChannel channel() {
        return channel;
    }

    /** Registers the socket with the loop's selector for {@code ops}, the connection handling its events. */
    void register(int ops) throws ClosedChannelException {
        key = loop.register(channel, ops, connection);
    }

    /** Replaces the selector's interest set. */
    void interest(int ops) {
        key.interestOps(ops);
    }

    /** Asks the selector to report readable bytes, or stops asking (a Send waits for a posted receive). */
    void setReadInterest(boolean on) {
        if (key.isValid()) {
            key.interestOps(on ? key.interestOps() | SelectionKey.OP_READ : key.interestOps() & ~SelectionKey.OP_READ);
        }
    }

    /** The MPA exchange's bytes, in write mode between reads. */
    ByteBuffer inbound() {
        return inbound;
    }

    /** Reads what the socket has into {@link #inbound()}; -1 at end of stream. */
    int readInbound() throws IOException {
        return channel.read(inbound);
    }

    /** What is queued for the socket; {@link #flush()} writes it. */
    OutboundQueue outbound() {
        return outbound;
    }

    /** The established queue pair, told of every byte the socket takes from here on. */
    void attach(SoftQueuePair established) {
        this.queuePair = established;
    }

    /** Queues {@code bytes} (given up by the caller) and flushes. */
    void send(ByteBuffer bytes) {
        outbound.add(bytes);
        flush();
    }

    /** Drops queued bytes not yet started; a partly written FPDU is kept so the stream stays framed. */
    void dropUnsent() {
        outbound.dropUnsent();
    }

    /**
     * Leaves what is queued to the duty cycle's flush ({@link SoftEventLoop#flush()}), so that what one cycle
     * produces for this socket leaves in one gathering write.
     */
    void flushLater() {
        if (closed) {
            return;
        }
        if (!waitsForRoom && outbound.enqueuedBytes() - outbound.flushedBytes() >= WRITE_AT_ONCE) {
            // A burst this large fills a write by itself; holding it to the cycle's end would only keep more
            // payload copies waiting (a parse can queue many 64 KiB Read Responses) and delay the peer.
            flush();
            return;
        }
        if (!flushPending) {
            flushPending = true;
            loop.flushLater(this);
        }
    }

    /** The duty cycle's flush: writes what was queued through {@link #flushLater()}. */
    void flushQueued() {
        flushPending = false;
        flush();
    }

    /** Whether the socket's send buffer was full at the last write, so that bytes wait for room. */
    boolean waitsForRoom() {
        return waitsForRoom;
    }

    /** Writes what the socket takes now; the rest leaves when the selector reports the socket writable. */
    void flush() {
        if (closed) {
            return;
        }
        try {
            waitsForRoom = !outbound.writeTo(channel);
            if (waitsForRoom) { // the socket's send buffer is full: continue when it drains
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                notifyFlushed();
                if (queuePair != null) {
                    queuePair.onSocketFull();
                }
                return;
            }
            notifyFlushed();
            if (key.isValid()) {
                key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
            }
            if (shutdownAfterFlush) {
                shutdownAfterFlush = false;
                channel.shutdownOutput();
                Runnable done = afterFlush;
                afterFlush = null;
                if (done != null) {
                    done.run();
                }
            }
        } catch (IOException e) {
            outbound.clear();
            connection.onTransportError(e);
        }
    }

    private void notifyFlushed() {
        if (queuePair != null) {
            queuePair.onFlushed(outbound.flushedBytes());
        }
    }

    /**
     * Sends FIN once what is queued is out, then {@code sent} runs; {@code lingerExpired} runs if the peer's FIN has
     * not ended the connection within the disconnect timeout. Does not flush.
     */
    void shutdownAfterFlush(Runnable sent, Runnable lingerExpired) {
        shutdownAfterFlush = true;
        afterFlush = sent;
        arm(loop.device().config().disconnectTimeout(), lingerExpired);
    }

    /**
     * Sends what is queued, then FIN, then waits for the peer's FIN up to the disconnect timeout before closing;
     * {@code sent} runs once the queued bytes are out.
     */
    void closeAfterFlush(Runnable sent) {
        if (closed) {
            return;
        }
        shutdownAfterFlush(sent, this::close);
        flush();
    }

    /** Whether bytes wait for the socket to take them (it reports writability through the selector). */
    boolean awaitsWritable() {
        return !outbound.isEmpty();
    }

    boolean isClosed() {
        return closed;
    }

    /** Runs {@code onExpiry} after {@code after} unless re-armed, disarmed or closed first. */
    void arm(Duration after, Runnable onExpiry) {
        disarm();
        timer = loop.poller().schedule(after, onExpiry);
    }

    void disarm() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** Closes the socket and forgets what was queued; idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        disarm();
        outbound.clear();
        loop.deregister(connection);
        SoftDevice.closeQuietly(channel);
    }
}
