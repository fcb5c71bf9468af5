package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo's side-by-side: RDMA READ against plain TCP on loopback, like for like, set up as {@code bin/bench}'s
 * headline runs are. Each side has one client thread that busy-polls (the client runtime it drives, with
 * {@code pollerThreads(0)} | a non-blocking socket) and one server thread (the server runtime's poller, idle strategy
 * BUSY_SPIN | a thread busy-polling its socket). Latency: one 8 B, 4 KiB or 64 KiB READ at a time | a 4-byte request answered with that
 * many bytes. Throughput: 16 READs of 64 KiB in flight | one socket streaming 64 KiB writes. The soft provider
 * runs without MPA CRC, as bin/bench does (TCP's own checksum covers loopback).
 */
final class ReadComparison {
    private static final int[] SIZES = {8, 4096, 65536};
    private static final int CHUNK = 64 * 1024;
    private static final int WINDOW = 16;
    /** The bytes of an RDMA Read Request (RFC 5040), the TCP request's size. */
    private static final int REQUEST = 28;
    private static final long THROUGHPUT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Each latency series runs this long before it is measured. */
    private static final long LATENCY_WARM_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final String provider;
    private final PrintStream out;

    ReadComparison(String provider, PrintStream out) {
        this.provider = provider;
        this.out = out;
    }

    void run() throws Exception {
        // One side at a time: a busy-spinning poller or socket thread of the other side would take a core from it.
        double[][] tcpLatency = new double[SIZES.length][];
        double tcpMibps;
        try (TcpPeer tcp = new TcpPeer()) {
            for (int i = 0; i < SIZES.length; i++) {
                int size = SIZES[i];
                tcpLatency[i] = percentiles(iterations(size), () -> tcp.roundTrip(size));
            }
            tcp.streamThroughput(WARM_UP_NANOS);
            tcpMibps = tcp.streamThroughput(THROUGHPUT_NANOS);
        }
        double[][] readLatency = new double[SIZES.length][];
        double readMibps;
        try (RdmaRuntime server = builder().threadNamePrefix("demo-server").idleStrategy(IdleStrategy.BUSY_SPIN)
                .build();
             RdmaRuntime client = builder().pollerThreads(0).build()) {
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                    .start();
            listener.next().get(15, TimeUnit.SECONDS).accept().get(15, TimeUnit.SECONDS);
            RdmaConnection connection = drive(client, connecting);
            listener.close();
            MemoryRegion local = client.register(ByteBuffer.allocateDirect(WINDOW * CHUNK), Access.LOCAL_WRITE);
            RemoteBuffer remote = server.register(ByteBuffer.allocateDirect(WINDOW * CHUNK), Access.LOCAL_WRITE,
                    Access.REMOTE_READ).remote();
            for (int i = 0; i < SIZES.length; i++) {
                int size = SIZES[i];
                readLatency[i] = percentiles(iterations(size),
                        () -> drive(client, connection.read(local, 0, remote, 0, size)));
            }
            // Warmed up as JMH's two warm-up iterations do: the READ path's hot loop is compiled after about 1 s.
            readThroughput(client, connection, local, remote, WARM_UP_NANOS);
            readMibps = readThroughput(client, connection, local, remote, THROUGHPUT_NANOS);
        }

        out.printf("READ against TCP on loopback, like for like (%s provider%s), one side at a time: one client "
                + "thread busy-polling (its runtime | a non-blocking socket), one busy-spinning server thread (the "
                + "server's poller | a socket thread)%n", provider,
                provider.equals("soft") ? ", MPA CRC off as in bin/bench" : "");
        out.println("latency, one at a time, microseconds:");
        out.println("      size   READ p50     p99   |  TCP p50     p99   ratio p50");
        for (int i = 0; i < SIZES.length; i++) {
            out.printf("  %8d %9.1f %7.1f   | %7.1f %7.1f   %5.2fx%n", SIZES[i], readLatency[i][0], readLatency[i][1],
                    tcpLatency[i][0], tcpLatency[i][1], readLatency[i][0] / tcpLatency[i][0]);
        }
        double smallRatio = readLatency[0][0] / tcpLatency[0][0];
        double streamRatio = readMibps / tcpMibps;
        out.printf("throughput, 64 KiB: %d READs in flight %.0f MiB/s | TCP stream %.0f MiB/s   ratio %.2fx%n",
                WINDOW, readMibps, tcpMibps, streamRatio);
        out.printf("verdict: an 8 B READ takes %.2fx the TCP round trip (%s); 64 KiB READs move %.2fx a TCP "
                        + "stream (%s)%n", smallRatio, smallRatio <= 1 ? "RDMA is faster" : "TCP is faster",
                streamRatio, streamRatio >= 1 ? "RDMA is faster" : "TCP is faster");
    }

    private static int iterations(int size) {
        return size > 4096 ? 5000 : 20000;
    }

    private RdmaRuntime.Builder builder() {
        RdmaRuntime.Builder b = RdmaRuntime.builder().provider(provider);
        return provider.equals("soft") ? b.providerOption("soft.crc", "false") : b;
    }

    /** Busy-polls the client runtime on this thread until {@code future} is done, within a deadline. */
    private static <T> T drive(RdmaRuntime client, CompletableFuture<T> future) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!future.isDone()) {
            client.poll();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within 15 s");
            }
        }
        return future.get();
    }

    private static double readThroughput(RdmaRuntime client, RdmaConnection connection, MemoryRegion local,
                                         RemoteBuffer remote, long nanos) throws Exception {
        @SuppressWarnings("unchecked")
        CompletableFuture<Completion>[] ring = new CompletableFuture[WINDOW];
        long bytes = 0;
        long start = System.nanoTime();
        for (int i = 0; System.nanoTime() - start < nanos; i++) {
            int slot = i % WINDOW;
            if (ring[slot] != null) {
                bytes += drive(client, ring[slot]).bytes();
            }
            ring[slot] = connection.read(local, slot * CHUNK, remote, (long) slot * CHUNK, CHUNK);
        }
        for (CompletableFuture<Completion> read : ring) {
            if (read != null) {
                bytes += drive(client, read).bytes();
            }
        }
        return bytes / ((System.nanoTime() - start) / 1e9) / (1 << 20);
    }

    private interface Action {
        void run() throws Exception;
    }

    /** p50 and p99 in microseconds of {@code n} runs, after running it for {@link #LATENCY_WARM_UP_NANOS}. */
    private static double[] percentiles(int n, Action action) throws Exception {
        long warm = System.nanoTime();
        while (System.nanoTime() - warm < LATENCY_WARM_UP_NANOS) {
            action.run();
        }
        long[] samples = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            action.run();
            samples[i] = System.nanoTime() - t0;
        }
        Arrays.sort(samples);
        return new double[] {samples[n / 2] / 1e3, samples[(int) (n * 0.99)] / 1e3};
    }

    /**
     * The TCP side: a loopback server thread that busy-polls non-blocking sockets, answering each 28-byte request
     * with the size it names, or streaming 64 KiB writes on a second connection; the client busy-polls too.
     */
    private static final class TcpPeer implements AutoCloseable {
        private final ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        private final SocketChannel requests;
        private final SocketChannel stream;
        private final ByteBuffer request = ByteBuffer.allocateDirect(REQUEST);
        private final ByteBuffer response = ByteBuffer.allocateDirect(CHUNK);
        private volatile boolean streamWanted;
        private volatile boolean closed;

        TcpPeer() throws IOException {
            requests = connect();
            SocketChannel answering = listener.accept();
            stream = connect();
            SocketChannel streaming = listener.accept();
            Thread server = new Thread(() -> serve(answering, streaming), "demo-tcp-peer");
            server.setDaemon(true);
            server.start();
        }

        private SocketChannel connect() throws IOException {
            SocketChannel s = SocketChannel.open(listener.getLocalAddress());
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            s.configureBlocking(false);
            return s;
        }

        /**
         * Answers requests, busy-polling, until the client asks for the stream; then writes 64 KiB at a time on the
         * streaming socket, busy-polling too, until closed.
         */
        private void serve(SocketChannel answering, SocketChannel streaming) {
            ByteBuffer asked = ByteBuffer.allocateDirect(REQUEST);
            ByteBuffer answer = ByteBuffer.allocateDirect(CHUNK);
            try (answering; streaming) {
                for (SocketChannel ch : new SocketChannel[] {answering, streaming}) {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ch.configureBlocking(false);
                }
                while (!closed) {
                    if (answering.read(asked) < 0) {
                        return;
                    }
                    if (!asked.hasRemaining()) {
                        answer.clear().limit(asked.getInt(0));
                        asked.clear();
                        while (answer.hasRemaining()) {
                            answering.write(answer);
                        }
                    }
                    if (streamWanted) {
                        while (!closed) {
                            answer.clear();
                            while (answer.hasRemaining() && !closed) {
                                streaming.write(answer);
                            }
                        }
                    }
                }
            } catch (IOException e) {
                // the demo closed its end
            }
        }

        void roundTrip(int size) throws IOException {
            request.clear().putInt(0, size);
            while (request.hasRemaining()) {
                requests.write(request);
            }
            response.clear().limit(size);
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (response.hasRemaining()) {
                if (requests.read(response) < 0 || System.nanoTime() - deadline > 0) {
                    throw new IOException("the TCP peer did not answer");
                }
            }
        }

        double streamThroughput(long nanos) throws IOException {
            streamWanted = true;
            long bytes = 0;
            long start = System.nanoTime();
            long deadline = start + nanos + WAIT_NANOS;
            while (System.nanoTime() - start < nanos) {
                int n = stream.read(response.clear());
                if (n < 0 || System.nanoTime() - deadline > 0) {
                    throw new IOException("the TCP stream ended");
                }
                bytes += n;
            }
            return bytes / ((System.nanoTime() - start) / 1e9) / (1 << 20);
        }

        @Override
        public void close() throws IOException {
            closed = true;
            requests.close();
            stream.close();
            listener.close();
        }
    }
}
