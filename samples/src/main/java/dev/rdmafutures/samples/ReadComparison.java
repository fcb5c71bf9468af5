package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
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
 * {@code pollerThreads(0)} | a non-blocking socket) and one busy-polling server thread (driving the server runtime |
 * its sockets). Latency: one 8 B, 4 KiB or 64 KiB READ at a time | a 28-byte request answered with that many bytes.
 * Throughput: 16 READs of 64 KiB in flight | one socket streaming 64 KiB writes. The soft provider runs without MPA
 * CRC, as bin/bench does (TCP's own checksum covers loopback).
 *
 * <p>Only one side runs at a time: the other side's server thread sleeps, as a spinning one would take a core. The
 * sides take turns in {@value #ROUNDS} rounds and each figure pools its rounds, because a virtual machine's host
 * moves its vCPUs nearer or farther apart every few tens of seconds, and a loopback round trip follows by about 40%:
 * measured in turns, both sides see the same placements.
 */
final class ReadComparison {
    private static final int[] SIZES = {8, 4096, 65536};
    private static final int CHUNK = 64 * 1024;
    private static final int WINDOW = 16;
    /** The bytes of an RDMA Read Request (RFC 5040), the TCP request's size. */
    private static final int REQUEST = 28;
    private static final int ROUNDS = 4;
    /** Each side's throughput, per round. */
    private static final long THROUGHPUT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Each side's first turn runs its throughput loop this long first: the hot loop is compiled after about 1 s. */
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Each latency series runs this long before it is measured in the first round, when its code is still cold. */
    private static final long FIRST_LATENCY_WARM_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** Each latency series runs this long before it is measured in the later rounds, after the other side's turn. */
    private static final long LATENCY_WARM_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final String provider;
    private final PrintStream out;

    ReadComparison(String provider, PrintStream out) {
        this.provider = provider;
        this.out = out;
    }

    void run() throws Exception {
        Series[] tcpLatency = Series.of(SIZES);
        Series[] readLatency = Series.of(SIZES);
        Rate tcpRate = new Rate();
        Rate readRate = new Rate();
        try (TcpPeer tcp = new TcpPeer();
             RdmaRuntime server = builder(provider).threadNamePrefix("demo-server").pollerThreads(0).build();
             ServerThread rdmaServer = new ServerThread("demo-rdma-server", server::poll);
             RdmaRuntime client = builder(provider).pollerThreads(0).build()) {
            server.handOver(rdmaServer.thread);
            rdmaServer.resume();
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                    .start();
            listener.next().get(15, TimeUnit.SECONDS).accept().get(15, TimeUnit.SECONDS);
            RdmaConnection connection = drive(client, connecting);
            listener.close();
            MemoryRegion local = client.register(ByteBuffer.allocateDirect(WINDOW * CHUNK), Access.LOCAL_WRITE);
            RemoteBuffer remote = server.register(ByteBuffer.allocateDirect(WINDOW * CHUNK), Access.LOCAL_WRITE,
                    Access.REMOTE_READ).remote();
            rdmaServer.pause();
            for (int round = 0; round < ROUNDS; round++) {
                long warmUp = round == 0 ? WARM_UP_NANOS : 0;
                long latencyWarmUp = round == 0 ? FIRST_LATENCY_WARM_UP_NANOS : LATENCY_WARM_UP_NANOS;
                tcp.server.resume();
                for (int i = 0; i < SIZES.length; i++) {
                    int size = SIZES[i];
                    tcpLatency[i].measure(iterations(size) / ROUNDS, latencyWarmUp, () -> tcp.roundTrip(size));
                }
                tcp.streamThroughput(warmUp, tcpRate);
                tcp.streamThroughput(THROUGHPUT_NANOS, tcpRate.counting());
                tcp.server.pause();
                rdmaServer.resume();
                for (int i = 0; i < SIZES.length; i++) {
                    int size = SIZES[i];
                    readLatency[i].measure(iterations(size) / ROUNDS, latencyWarmUp,
                            () -> drive(client, connection.read(local.slice(0, size), remote, 0, OperationFlags.NONE)));
                }
                readThroughput(client, connection, local, remote, warmUp, readRate);
                readThroughput(client, connection, local, remote, THROUGHPUT_NANOS, readRate.counting());
                rdmaServer.pause();
            }
            rdmaServer.resume(); // the runtimes close with their server polled
        }

        out.printf("READ against TCP on loopback, like for like (%s provider%s), one side at a time, %d turns "
                + "each: one client thread busy-polling (its runtime | a non-blocking socket), one busy-polling "
                + "server thread (the server runtime | its sockets)%n", provider,
                provider.equals("soft") ? ", MPA CRC off as in bin/bench" : "", ROUNDS);
        out.println("latency, one at a time, microseconds:");
        out.println("      size   READ p50     p99   |  TCP p50     p99   ratio p50");
        for (int i = 0; i < SIZES.length; i++) {
            out.printf("  %8d %9.1f %7.1f   | %7.1f %7.1f   %5.2fx%n", SIZES[i], readLatency[i].percentile(0.50),
                    readLatency[i].percentile(0.99), tcpLatency[i].percentile(0.50), tcpLatency[i].percentile(0.99),
                    readLatency[i].percentile(0.50) / tcpLatency[i].percentile(0.50));
        }
        double smallRatio = readLatency[0].percentile(0.50) / tcpLatency[0].percentile(0.50);
        double streamRatio = readRate.mibPerSecond() / tcpRate.mibPerSecond();
        out.printf("throughput, 64 KiB: %d READs in flight %.0f MiB/s | TCP stream %.0f MiB/s   ratio %.2fx%n",
                WINDOW, readRate.mibPerSecond(), tcpRate.mibPerSecond(), streamRatio);
        out.printf("verdict: an 8 B READ takes %.2fx the TCP round trip (%s); 64 KiB READs move %.2fx a TCP "
                        + "stream (%s)%n", smallRatio, smallRatio <= 1 ? "RDMA is faster" : "TCP is faster",
                streamRatio, streamRatio >= 1 ? "RDMA is faster" : "TCP is faster");
    }

    private static int iterations(int size) {
        return size > 4096 ? 5000 : 20000;
    }

    /** A runtime builder for {@code provider}; soft without MPA CRC, as bin/bench runs it. */
    static RdmaRuntime.Builder builder(String provider) {
        RdmaRuntime.Builder b = RdmaRuntime.builder().provider(provider);
        return provider.equals("soft") ? b.providerOption("soft.crc", "false") : b;
    }

    /** Busy-polls the client runtime on this thread until {@code future} is done, within a deadline. */
    static <T> T drive(RdmaRuntime client, CompletableFuture<T> future) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!future.isDone()) {
            client.poll();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within 15 s");
            }
        }
        return future.get();
    }

    /** Keeps {@value #WINDOW} 64 KiB READs in flight for {@code nanos}, adding what they moved to {@code rate}. */
    private static void readThroughput(RdmaRuntime client, RdmaConnection connection, MemoryRegion local,
                                       RemoteBuffer remote, long nanos, Rate rate) throws Exception {
        @SuppressWarnings("unchecked")
        CompletableFuture<Completion>[] ring = new CompletableFuture[WINDOW];
        long bytes = 0;
        long start = System.nanoTime();
        for (int i = 0; System.nanoTime() - start < nanos; i++) {
            int slot = i % WINDOW;
            if (ring[slot] != null) {
                bytes += drive(client, ring[slot]).bytes();
            }
            ring[slot] = connection.read(local.slice(slot * CHUNK, CHUNK), remote, (long) slot * CHUNK,
                    OperationFlags.NONE);
        }
        for (CompletableFuture<Completion> read : ring) {
            if (read != null) {
                bytes += drive(client, read).bytes();
            }
        }
        rate.add(bytes, System.nanoTime() - start);
    }

    private interface Action {
        void run() throws Exception;
    }

    /** One size's round-trip samples, pooled over the rounds. */
    private static final class Series {
        private long[] samples = new long[0];

        static Series[] of(int[] sizes) {
            Series[] all = new Series[sizes.length];
            Arrays.setAll(all, i -> new Series());
            return all;
        }

        /** Runs {@code action} for {@code warmUpNanos}, then {@code n} more times, timing each. */
        void measure(int n, long warmUpNanos, Action action) throws Exception {
            long warm = System.nanoTime();
            while (System.nanoTime() - warm < warmUpNanos) {
                action.run();
            }
            int from = samples.length;
            samples = Arrays.copyOf(samples, from + n);
            for (int i = from; i < samples.length; i++) {
                long t0 = System.nanoTime();
                action.run();
                samples[i] = System.nanoTime() - t0;
            }
        }

        /** The {@code p} quantile of every sample so far, in microseconds. */
        double percentile(double p) {
            long[] sorted = samples.clone();
            Arrays.sort(sorted);
            return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))] / 1e3;
        }
    }

    /** Bytes and time pooled over the rounds; a warm-up adds to a rate that does not count. */
    private static final class Rate {
        private long bytes;
        private long nanos;
        private boolean counting;

        Rate counting() {
            counting = true;
            return this;
        }

        void add(long moved, long elapsed) {
            if (counting) {
                bytes += moved;
                nanos += elapsed;
            }
            counting = false;
        }

        double mibPerSecond() {
            return bytes / (nanos / 1e9) / (1 << 20);
        }
    }

    /**
     * The TCP side: a loopback server thread that busy-polls non-blocking sockets, answering each 28-byte request
     * with the size it names, and while the client asks for the stream, writing 64 KiB at a time on a second
     * connection; the client busy-polls too.
     */
    private static final class TcpPeer implements AutoCloseable {
        final ServerThread server;
        private final ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        private final SocketChannel requests;
        private final SocketChannel stream;
        private final SocketChannel answering;
        private final SocketChannel streaming;
        private final ByteBuffer request = ByteBuffer.allocateDirect(REQUEST);
        private final ByteBuffer response = ByteBuffer.allocateDirect(CHUNK);
        private final ByteBuffer asked = ByteBuffer.allocateDirect(REQUEST);
        private final ByteBuffer answer = ByteBuffer.allocateDirect(CHUNK);
        private final ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK);
        private volatile boolean streamWanted;

        TcpPeer() throws IOException {
            requests = connect();
            answering = accept();
            stream = connect();
            streaming = accept();
            server = new ServerThread("demo-tcp-peer", this::serve);
        }

        private SocketChannel connect() throws IOException {
            SocketChannel s = SocketChannel.open(listener.getLocalAddress());
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            s.configureBlocking(false);
            return s;
        }

        private SocketChannel accept() throws IOException {
            SocketChannel s = listener.accept();
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            s.configureBlocking(false);
            return s;
        }

        /** One turn of the server thread: answers a request once all of it is in, or writes to the stream. */
        private void serve() throws IOException {
            if (answering.read(asked) < 0) {
                throw new IOException("the demo closed its request socket");
            }
            if (!asked.hasRemaining()) {
                answer.clear().limit(asked.getInt(0));
                asked.clear();
                while (answer.hasRemaining()) {
                    answering.write(answer);
                }
            }
            if (streamWanted) {
                if (!chunk.hasRemaining()) {
                    chunk.clear();
                }
                streaming.write(chunk);
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

        /**
         * Reads the stream for {@code nanos}, adding what arrived to {@code rate}; then stops it and drains what the
         * socket still holds, so that the next turn counts only what it receives.
         */
        void streamThroughput(long nanos, Rate rate) throws IOException {
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
            rate.add(bytes, System.nanoTime() - start);
            streamWanted = false;
            long quiet = System.nanoTime();
            while (System.nanoTime() - quiet < TimeUnit.MILLISECONDS.toNanos(20)) { // no write is in flight then
                if (stream.read(response.clear()) > 0) {
                    quiet = System.nanoTime();
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("the TCP stream did not stop");
                }
            }
        }

        @Override
        public void close() throws IOException, InterruptedException {
            server.close();
            for (SocketChannel ch : new SocketChannel[] {requests, stream, answering, streaming}) {
                ch.close();
            }
            listener.close();
        }
    }
}
