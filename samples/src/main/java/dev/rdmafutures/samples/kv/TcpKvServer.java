package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP twin of {@link RdmaKvServer}: the same {@link KvStore} and the same {@link Frames}, served by one selector
 * thread over non-blocking sockets, which waits for work as the RDMA server's poller does ({@link Idler}). Every
 * request is answered here: a GET with what a GET over RDMA checks (the key's slot with its inline value, or its
 * heap record), a PUT with an acknowledgement. Requests a client pipelines are answered in order, in as few writes as
 * the socket allows.
 */
final class TcpKvServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpKvServer.class);
    private static final int SPACE = 64 * 1024;
    /** The longest a blocking select lasts before the loop looks at {@code running} again. */
    private static final long MAX_BLOCK_MILLIS = 1000;

    private final KvStore store;
    private final int maxValue;
    private final int getOp;
    private final Selector selector;
    private final ServerSocketChannel listener;
    private final Thread thread;
    private final IdleStrategy idle;
    private volatile boolean running = true;

    /** Serves {@code store} on {@code address}; the selector thread waits as {@code idle} says. */
    TcpKvServer(InetSocketAddress address, KvStore store, IdleStrategy idle) throws IOException {
        this.store = store;
        this.idle = idle;
        this.maxValue = store.layout().maxValue();
        this.getOp = store.layout().inline() ? Frames.SLOT : Frames.VALUE;
        this.selector = Selector.open();
        this.listener = ServerSocketChannel.open().bind(address);
        listener.configureBlocking(false).register(selector, SelectionKey.OP_ACCEPT);
        this.thread = new Thread(this::serve, "kv-tcp-server");
        thread.setDaemon(true);
        thread.start();
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) listener.getLocalAddress();
    }

    private void serve() {
        try {
            Idler idler = new Idler(idle, () -> selector.select(this::handle, MAX_BLOCK_MILLIS));
            while (running) {
                idler.idle(selector.selectNow(this::handle));
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("the TCP KV server stopped: {}", e.toString());
        }
    }

    private void handle(SelectionKey key) {
        try {
            if (key.isAcceptable()) {
                accept();
            } else {
                ((Peer) key.attachment()).handle(key);
            }
        } catch (IOException e) {
            LOG.debug("a KV client went away: {}", e.toString());
            close(key);
        }
    }

    private void accept() throws IOException {
        SocketChannel channel = listener.accept();
        if (channel != null) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true).configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ, new Peer(channel));
        }
    }

    private static void close(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException e) {
            LOG.debug("closing a KV client: {}", e.toString());
        }
    }

    @Override
    public void close() throws IOException {
        running = false;
        selector.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closed all the same; the caller's thread keeps its interrupt
        }
        for (SelectionKey key : selector.keys()) {
            key.channel().close();
        }
        selector.close();
    }

    /** One client: requests accumulate in {@code in}, responses in {@code out} until the socket takes them. */
    private final class Peer {
        private final SocketChannel channel;
        private final ByteBuffer in = ByteBuffer.allocateDirect(SPACE + Frames.REQUEST_BYTES + maxValue);
        private final ByteBuffer out = ByteBuffer.allocateDirect(SPACE + 2 * (Frames.RESPONSE_BYTES
                + store.largestAnswer()));

        Peer(SocketChannel channel) {
            this.channel = channel;
        }

        void handle(SelectionKey key) throws IOException {
            if (key.isReadable() && channel.read(in) < 0) {
                close(key);
                return;
            }
            answer();
            out.flip();
            channel.write(out);
            out.compact();
            // Read while there is room for requests; write while answers wait. A full buffer stops reading until
            // the answers are out, which is the back-pressure a pipelining client feels. (A full in buffer always
            // holds a complete request, so it is full only while answers wait: the interest is never empty.)
            key.interestOps((in.hasRemaining() ? SelectionKey.OP_READ : 0)
                    | (out.position() > 0 ? SelectionKey.OP_WRITE : 0));
        }

        /** Answers every complete request while the largest answer still fits. */
        private void answer() throws IOException {
            in.flip();
            int largest = Frames.RESPONSE_BYTES + store.largestAnswer();
            while (in.remaining() >= Frames.REQUEST_BYTES && out.remaining() >= largest) {
                int at = in.position();
                int op = Frames.op(in, at);
                int requestId = Frames.requestId(in, at);
                long key = Frames.requestKey(in, at);
                int length = Frames.requestLength(in, at);
                int reply = out.position();
                if (op == Frames.GET) {
                    int found = store.get(key, out, reply + Frames.RESPONSE_BYTES);
                    Frames.response(out, reply, getOp, requestId, found < 0 ? Frames.NOT_FOUND : Frames.OK,
                            Math.max(found, 0), 0);
                    out.position(reply + Frames.RESPONSE_BYTES + Math.max(found, 0));
                    in.position(at + Frames.REQUEST_BYTES);
                } else if (op == Frames.PUT && length >= 0 && length <= maxValue) {
                    if (in.remaining() < Frames.REQUEST_BYTES + length) {
                        break;
                    }
                    long version = store.put(key, in, at + Frames.REQUEST_BYTES, length, Frames.requestCrc(in, at));
                    Frames.response(out, reply, Frames.ACK, requestId, version < 0 ? (int) -version : Frames.OK, 0,
                            Math.max(version, 0));
                    out.position(reply + Frames.RESPONSE_BYTES);
                    in.position(at + Frames.REQUEST_BYTES + length);
                } else {
                    throw new IOException("a request with op " + op + " and length " + length);
                }
            }
            in.compact();
        }
    }
}
