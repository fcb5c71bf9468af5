package dev.rdmafutures.jmh;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Java socket baselines on loopback, each a pair of non-blocking channels that busy-poll: a request/response
 * ping-pong (for RDMA Read: a 28-byte request, the size of an RDMA Read Request, answered with {@code size} bytes),
 * and a bulk stream in which the server writes as fast as the client reads.
 */
final class SocketBaselines implements AutoCloseable {
    /** The bytes of an RDMA Read Request's RDMAP header (RFC 5040). */
    static final int READ_REQUEST = 28;

    private final ServerSocketChannel listener;
    final SocketChannel client;
    private final Thread server;
    private volatile boolean running = true;

    private SocketBaselines(boolean stream, int requestSize, int size) throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(listener.getLocalAddress());
        SocketChannel accepted = listener.accept();
        for (SocketChannel ch : new SocketChannel[] {client, accepted}) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
        }
        server = new Thread(() -> serve(accepted, stream, requestSize, size), "baseline-server");
        server.setDaemon(true);
        server.start();
    }

    static SocketBaselines pingPong(int requestSize, int responseSize) throws IOException {
        return new SocketBaselines(false, requestSize, responseSize);
    }

    static SocketBaselines stream(int chunk) throws IOException {
        return new SocketBaselines(true, 0, chunk);
    }

    private void serve(SocketChannel ch, boolean stream, int requestSize, int size) {
        ByteBuffer request = ByteBuffer.allocateDirect(Math.max(1, requestSize));
        ByteBuffer response = ByteBuffer.allocateDirect(size);
        try {
            while (running) {
                if (!stream) {
                    request.clear();
                    while (request.hasRemaining() && running) {
                        if (ch.read(request) < 0) {
                            return;
                        }
                    }
                }
                response.clear();
                while (response.hasRemaining() && running) {
                    ch.write(response);
                }
            }
        } catch (IOException e) {
            // the benchmark closed the connection
        }
    }

    /** One request/response round trip, busy-polling. */
    void roundTrip(ByteBuffer request, ByteBuffer response) throws IOException {
        request.clear();
        while (request.hasRemaining()) {
            client.write(request);
        }
        readFully(response);
    }

    /** Reads {@code into} full, busy-polling. */
    void readFully(ByteBuffer into) throws IOException {
        into.clear();
        while (into.hasRemaining()) {
            if (client.read(into) < 0) {
                throw new IOException("baseline server closed");
            }
        }
    }

    @Override
    public void close() throws IOException {
        running = false;
        client.close();
        listener.close();
    }
}
