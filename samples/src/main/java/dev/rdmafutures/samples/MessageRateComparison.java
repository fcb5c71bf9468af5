package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo's small-operation rate, shaped as {@code bin/bench}'s MessageRate row "READ, 8 B, window 16, one
 * connection": {@value #WINDOW} READs of {@value #SIZE} B kept in flight on one connection, each re-posted from its
 * completion callback, against a pipelined TCP request/response with as many requests in flight. The TCP requests
 * are soft's Read Request FPDU ({@value #REQUEST} B: MPA length, DDP and RDMAP headers, the Read Request, the CRC
 * field), the responses {@value #SIZE} B; each side reads everything a socket has in one call and writes everything
 * it owes in one call per pass, as a pipelining server does. Both sides of both systems busy-poll: the client on
 * this thread (its application-driven runtime | a non-blocking socket), the server on a {@link ServerThread} (the
 * server runtime | its socket). As in {@link ReadComparison}, one side runs at a time, in {@value #ROUNDS} turns.
 *
 * <p>Every turn ends by draining: no new operation is posted and every one in flight must complete within 15 s, every
 * READ with its {@value #SIZE} bytes, or the comparison fails.
 */
final class MessageRateComparison {
    private static final int SIZE = 8;
    private static final int WINDOW = 16;
    /** soft's Read Request FPDU: 2 B MPA length, 18 B DDP and RDMAP headers, 28 B Read Request, 4 B CRC field. */
    private static final int REQUEST = 52;
    private static final int ROUNDS = 4;
    /** Each side's turn. */
    private static final long TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Each side's first turn runs this long first, uncounted, for its hot loop to be compiled. */
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final String provider;
    private final PrintStream out;

    MessageRateComparison(String provider, PrintStream out) {
        this.provider = provider;
        this.out = out;
    }

    void run() throws Exception {
        Rate readRate = new Rate();
        Rate tcpRate = new Rate();
        try (PipelinedTcp tcp = new PipelinedTcp();
             RdmaRuntime serverRuntime = ReadComparison.builder(provider).threadNamePrefix("demo-rate-server")
                     .pollerThreads(0).build();
             ServerThread rdmaServer = new ServerThread("demo-rate-rdma-server", serverRuntime::poll);
             RdmaRuntime clientRuntime = ReadComparison.builder(provider).pollerThreads(0).build()) {
            serverRuntime.handOver(rdmaServer.thread);
            rdmaServer.resume();
            RdmaListener listener = serverRuntime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<RdmaConnection> connecting = clientRuntime.connector()
                    .connect(listener.localAddress()).start();
            listener.next().get(15, TimeUnit.SECONDS).accept().get(15, TimeUnit.SECONDS);
            Reads reads = new Reads(clientRuntime, ReadComparison.drive(clientRuntime, connecting),
                    clientRuntime.register(ByteBuffer.allocateDirect(WINDOW * SIZE), Access.LOCAL_WRITE),
                    serverRuntime.register(ByteBuffer.allocateDirect(WINDOW * SIZE), Access.LOCAL_WRITE,
                            Access.REMOTE_READ).remote());
            listener.close();
            rdmaServer.pause();
            for (int round = 0; round < ROUNDS; round++) {
                tcp.server.resume();
                if (round == 0) {
                    tcp.turn(WARM_UP_NANOS, new Rate());
                }
                tcp.turn(TURN_NANOS, tcpRate);
                tcp.server.pause();
                rdmaServer.resume();
                if (round == 0) {
                    reads.turn(WARM_UP_NANOS, new Rate());
                }
                reads.turn(TURN_NANOS, readRate);
                rdmaServer.pause();
            }
            rdmaServer.resume(); // the runtimes close with their server polled
        }
        double ratio = readRate.perSecond() / tcpRate.perSecond();
        out.printf("message rate, %d B with %d in flight on one connection (%s provider), one side at a time, %d turns "
                + "each: READs re-posted from their completion callbacks | pipelined TCP, %d B requests answered with "
                + "%d B, one read and one write per socket per pass; both sides busy-polling%n", SIZE, WINDOW, provider,
                ROUNDS, REQUEST, SIZE);
        out.printf("  READ %.0f ops/s | TCP %.0f requests/s   ratio %.2fx   (%d READs and %d requests counted; every "
                + "one posted completed)%n", readRate.perSecond(), tcpRate.perSecond(), ratio, readRate.ops,
                tcpRate.ops);
        out.printf("verdict: %d B READs with %d in flight complete at %.2fx the rate of pipelined TCP requests (%s)%n",
                SIZE, WINDOW, ratio, ratio >= 1 ? "RDMA is faster" : "TCP is faster");
    }

    /** Operations and time pooled over the turns. */
    private static final class Rate {
        private long ops;
        private long nanos;

        void add(long done, long elapsed) {
            ops += done;
            nanos += elapsed;
        }

        double perSecond() {
            return ops / (nanos / 1e9);
        }
    }

    /**
     * The RDMA side: {@value #WINDOW} READs on one connection, driven by the client runtime's owner, this thread. Each
     * slot's local buffer is sliced once, so a READ allocates nothing; a READ the connection refuses fails the turn.
     */
    private static final class Reads implements CompletionCallback {
        private final RdmaRuntime runtime;
        private final RdmaConnection connection;
        /** Slot {@code i}'s {@value #SIZE} bytes of the local region, which READs remote offset {@code i * SIZE}. */
        private final RegionSlice[] slots = new RegionSlice[WINDOW];
        private final RemoteBuffer remote;
        private boolean posting;
        private long completed;
        private int outstanding;
        private RuntimeException failure;

        Reads(RdmaRuntime runtime, RdmaConnection connection, MemoryRegion local, RemoteBuffer remote) {
            this.runtime = runtime;
            this.connection = connection;
            for (int slot = 0; slot < WINDOW; slot++) {
                slots[slot] = local.slice(slot * SIZE, SIZE);
            }
            this.remote = remote;
        }

        /** Keeps the window full for {@code nanos}, adds what completed meanwhile to {@code rate}, then drains. */
        void turn(long nanos, Rate rate) {
            posting = true;
            outstanding = WINDOW;
            long start = System.nanoTime();
            long from = completed;
            for (int slot = 0; slot < WINDOW; slot++) {
                post(slot);
            }
            while (System.nanoTime() - start < nanos && failure == null) { // a failure ends the turn at once
                runtime.poll();
            }
            rate.add(completed - from, System.nanoTime() - start);
            posting = false;
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (outstanding > 0 && failure == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(outstanding + " READs did not complete within 15 s");
                }
                runtime.poll();
            }
            if (failure != null) {
                throw failure;
            }
        }

        private void post(long slot) {
            Status status = connection.read(slots[(int) slot], remote, slot * SIZE, OperationFlags.NONE, this, slot);
            if (status != Status.SUCCESS) { // nothing was posted: no callback comes for this slot
                failure = new RdmaException(status, "a READ was refused with " + status);
                outstanding--;
            }
        }

        @Override
        public void completed(long slot, int bytes) {
            if (bytes != SIZE) {
                failure = new IllegalStateException("a READ moved " + bytes + " B, not " + SIZE);
            }
            completed++;
            if (posting && failure == null) {
                post(slot);
            } else {
                outstanding--;
            }
        }

        @Override
        public void failed(long slot, RdmaException error) {
            failure = error;
            outstanding--;
        }
    }

    /**
     * The TCP side: one connection on loopback, {@value #WINDOW} requests in flight, a server thread answering every
     * request; each end reads all its socket has and writes all it owes once per pass, busy-polling.
     */
    private static final class PipelinedTcp implements AutoCloseable {
        final ServerThread server;
        private final ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        private final Pipe client;
        private final Pipe answering;

        PipelinedTcp() throws IOException {
            client = new Pipe(SocketChannel.open(listener.getLocalAddress()), SIZE, REQUEST);
            answering = new Pipe(listener.accept(), REQUEST, SIZE);
            server = new ServerThread("demo-rate-tcp-peer", this::serve);
        }

        /** One pass of the server thread: answers every whole request that arrived. */
        private void serve() throws IOException {
            int requests = answering.read();
            if (requests < 0) {
                throw new IOException("the demo closed its request socket");
            }
            answering.owe(requests);
            answering.flush();
        }

        /** Keeps the window full for {@code nanos}, adds what was answered meanwhile to {@code rate}, then drains. */
        void turn(long nanos, Rate rate) throws IOException {
            client.owe(WINDOW);
            long answered = 0;
            long start = System.nanoTime();
            while (System.nanoTime() - start < nanos) {
                int n = pass();
                answered += n;
                client.owe(n);
            }
            rate.add(answered, System.nanoTime() - start);
            int outstanding = WINDOW; // each answer was replaced by a request
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (outstanding > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException(outstanding + " TCP requests were not answered within 15 s");
                }
                outstanding -= pass();
            }
        }

        private int pass() throws IOException {
            int n = client.read();
            if (n < 0) {
                throw new IOException("the TCP peer closed the connection");
            }
            client.flush();
            return n;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            server.close();
            client.channel.close();
            answering.channel.close();
            listener.close();
        }
    }

    /** One end of the connection: what it has read of the next inbound message, and the bytes it owes its peer. */
    private static final class Pipe {
        final SocketChannel channel;
        private final int inSize;
        private final int outSize;
        // At most a window of messages is unanswered each way: one read or write of a window takes all there is.
        private final ByteBuffer in;
        private final ByteBuffer out;
        private int partial;
        private int owed;

        Pipe(SocketChannel channel, int inSize, int outSize) throws IOException {
            this.channel = channel;
            this.inSize = inSize;
            this.outSize = outSize;
            in = ByteBuffer.allocateDirect(WINDOW * inSize);
            out = ByteBuffer.allocateDirect(WINDOW * outSize);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
        }

        /** Reads all the socket has in one call; returns the messages that completed, -1 at the end of the stream. */
        int read() throws IOException {
            int n = channel.read(in.clear());
            if (n <= 0) {
                return n;
            }
            partial += n;
            int messages = partial / inSize;
            partial -= messages * inSize;
            return messages;
        }

        void owe(int messages) {
            owed += messages * outSize;
        }

        /** Writes all it owes in one call, as far as the socket takes it. */
        void flush() throws IOException {
            if (owed > 0) {
                owed -= channel.write(out.clear().limit(owed));
            }
        }
    }
}
