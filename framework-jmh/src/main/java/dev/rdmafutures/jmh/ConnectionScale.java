package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * How the cost of {@code soft} connections grows with their number (issue 16), on loopback, both runtimes of the
 * pair in this one process.
 *
 * <p>For each count N: a server runtime (one busy-spinning poller, as in the READ benchmarks) listening on
 * 127.0.0.1..127.0.0.k (one listener per {@value #PER_LISTENER} connections; Linux routes all of 127/8 to lo) and an
 * application-driven client runtime ({@code pollerThreads(0)}) that this thread drives. It establishes N
 * connections with at most {@value #IN_FLIGHT} connects in flight and reports the time; the memory an idle
 * connection holds, heap after a full GC plus direct buffers, before and after, divided by N (both ends of every
 * connection are in this process, so it is the cost of a client end and a server end together; the resident set's
 * growth is reported beside it, kernel socket memory is in neither); then the round trip of an 8 B READ on one
 * connection (callback API, busy-polling {@code poll()} as the headline benchmark does) while the others are idle,
 * and while a tenth of them each keep one 8 B READ outstanding, re-posted from its callback. The busy connections
 * belong to the same client runtime, so this thread's polls complete their READs too and the server's one poller
 * answers them all: a probe READ queues behind theirs, as it would on any one poller serving them.
 *
 * <p>Then the set-up rate: connect+accept per second with each number of concurrent connectors (threads that each
 * connect, wait until established and close; one poller per runtime, backing off), beside plain TCP on loopback
 * with as many threads doing a blocking connect, a 1-byte round trip and close against a one-thread NIO echo server.
 *
 * <p>Usage: {@code ConnectionScale COUNTS CONNECTORS SECONDS OUT.json} (lists comma-separated; SECONDS is each
 * latency and rate measurement's length, each after a warm-up of half of it). A first pass with one connection,
 * not reported, warms up the code. Needs two file descriptors per connection: it stops at once, saying so, if the
 * limit is lower.
 */
public final class ConnectionScale {
    /** Connects in flight while establishing: the listener's backlog holds them all. */
    static final int IN_FLIGHT = 64;
    /** Connections per listener address, well inside one address pair's ephemeral ports. */
    static final int PER_LISTENER = 2500;
    private static final int BACKLOG = 1024;
    private static final int SIZE = 8;
    /** File descriptors the JVM, the selectors and the listeners need beside the connections' sockets. */
    private static final int SPARE_DESCRIPTORS = 256;
    private static final long SECOND = 1_000_000_000L;
    private static final int MAX_SAMPLES = 1 << 20;

    private final RdmaRuntime server;
    private final RdmaRuntime client;
    private final List<RdmaListener> listeners = new ArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicReference<Throwable> acceptFailure = new AtomicReference<>();
    private MemoryRegion clientRegion;
    private RemoteBuffer serverBuffer;
    private RdmaConnection[] connections;
    /** Establishing: connects started and finished, on this thread only (the client runtime completes here). */
    private int inFlight;
    private int established;
    private Throwable connectFailure;

    private ConnectionScale(int n) {
        server = Pair.builder("soft").threadNamePrefix("scale-server").pollerThreads(1)
                .idleStrategy(IdleStrategy.BUSY_SPIN).listenBacklog(BACKLOG).build();
        client = Pair.builder("soft").threadNamePrefix("scale-client").pollerThreads(0).build();
        int k = (n + PER_LISTENER - 1) / PER_LISTENER;
        try {
            for (int i = 0; i < k; i++) {
                RdmaListener l = server.listen(new InetSocketAddress(InetAddress.getByAddress(
                        new byte[] {127, 0, 0, (byte) (i + 1)}), 0));
                l.onRequest(r -> r.accept().whenComplete((c, e) -> {
                    if (e != null) {
                        acceptFailure.compareAndSet(null, e);
                    } else {
                        accepted.incrementAndGet();
                    }
                }));
                listeners.add(l);
            }
        } catch (IOException e) {
            close();
            throw new IllegalStateException("cannot listen on 127.0.0.x", e);
        }
        int busy = n / 10;
        MemoryRegion serverRegion = server.register(ByteBuffer.allocateDirect(SIZE), Access.LOCAL_WRITE,
                Access.REMOTE_READ);
        serverBuffer = serverRegion.remote();
        clientRegion = client.register(ByteBuffer.allocateDirect(SIZE * (busy + 1)), Access.LOCAL_WRITE);
    }

    private void close() {
        client.close();
        server.close();
    }

    /** One count's row of the report. */
    private static String measure(int n, double seconds) throws Exception {
        ConnectionScale s = new ConnectionScale(n);
        try {
            long[] before = memory();
            long start = System.nanoTime();
            s.establish(n);
            double establishSeconds = (System.nanoTime() - start) / 1e9;
            long[] after = memory();
            String idle = s.readLatency(seconds, 0);
            String busy = n >= 10 ? s.readLatency(seconds, n / 10) : "null";
            return String.format(Locale.ROOT, "{\"connections\": %d, \"listeners\": %d, \"establishSeconds\": %.4f, "
                            + "\"connectsPerSecond\": %.1f, \"heapBytesPerConnection\": %.1f, "
                            + "\"directBytesPerConnection\": %.1f, \"memoryBytesPerConnection\": %.1f, "
                            + "\"rssBytesPerConnection\": %.1f, \"readIdle\": %s, \"readBusy\": %s}",
                    n, s.listeners.size(), establishSeconds, n / establishSeconds, (after[0] - before[0]) / (double) n,
                    (after[1] - before[1]) / (double) n, (after[0] + after[1] - before[0] - before[1]) / (double) n,
                    (after[2] - before[2]) / (double) n, idle, busy);
        } finally {
            s.close();
        }
    }

    /** Establishes {@code n} connections, {@value #IN_FLIGHT} at most in flight, until both ends report them. */
    private void establish(int n) {
        connections = new RdmaConnection[n];
        long deadline = System.nanoTime() + 60 * SECOND + n * 10_000_000L;
        int started = 0;
        while (established < n || accepted.get() < n) {
            while (inFlight < IN_FLIGHT && started < n) {
                int i = started++;
                inFlight++;
                CompletableFuture<RdmaConnection> f = client.connector()
                        .connect(listeners.get(i % listeners.size()).localAddress()).start();
                f.whenComplete((c, e) -> {
                    inFlight--;
                    if (e != null) {
                        connectFailure = connectFailure == null ? e : connectFailure;
                    } else {
                        connections[i] = c;
                        established++;
                    }
                });
            }
            client.poll();
            Throwable failed = connectFailure != null ? connectFailure : acceptFailure.get();
            if (failed != null) {
                throw new IllegalStateException("connection " + (established + 1) + " of " + n + " failed", failed);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + established + " of " + n + " connections established ("
                        + accepted.get() + " accepted) before the deadline");
            }
        }
    }

    /**
     * The 8 B READ round trip on connection 0 while connections 1..{@code busy} each keep one READ outstanding:
     * a JSON object with p50, p99 and mean in microseconds.
     */
    private String readLatency(double seconds, int busy) {
        Busy load = new Busy(busy);
        load.start();
        Waiter w = new Waiter();
        RdmaConnection probe = connections[0];
        long[] samples = new long[MAX_SAMPLES];
        int count = 0;
        long warmEnd = System.nanoTime() + (long) (seconds * SECOND / 2);
        long end = warmEnd + (long) (seconds * SECOND);
        long t;
        do {
            w.arm(1);
            long t0 = System.nanoTime();
            probe.read(clientRegion, 0, serverBuffer, 0, SIZE, w, 0);
            await(w);
            t = System.nanoTime();
            w.result();
            if (t - warmEnd >= 0 && count < MAX_SAMPLES) {
                samples[count++] = t - t0;
            }
        } while (t - end < 0);
        double loadRate = load.stop();
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(Double.NaN) / 1e3;
        return String.format(Locale.ROOT, "{\"busyConnections\": %d, \"samples\": %d, \"p50Us\": %.3f, "
                        + "\"p99Us\": %.3f, \"meanUs\": %.3f, \"busyReadsPerSecond\": %.1f}", busy, count,
                percentile(sorted, 0.50) / 1e3, percentile(sorted, 0.99) / 1e3, mean, loadRate);
    }

    /** Polls the client runtime until {@code w}'s operations completed; an operation that never does fails it. */
    private void await(Waiter w) {
        long deadline = System.nanoTime() + 10 * SECOND;
        int spins = 0;
        while (!w.isDone()) {
            client.poll();
            if ((++spins & 0xFFF) == 0 && System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("an 8 B READ did not complete within 10 s");
            }
        }
    }

    /** Connections 1..n each keeping one 8 B READ outstanding, re-posted from the callback (no allocation). */
    private final class Busy implements CompletionCallback {
        private final int n;
        private boolean stopping;
        private int outstanding;
        private long completed;
        private long started;
        private RdmaException error;

        Busy(int n) {
            this.n = n;
        }

        void start() {
            started = System.nanoTime();
            for (int i = 1; i <= n; i++) {
                post(i);
            }
        }

        private void post(long i) {
            outstanding++;
            connections[(int) i].read(clientRegion, SIZE * (int) i, serverBuffer, 0, SIZE, this, i);
        }

        /** Stops re-posting and waits for the outstanding READs; returns the READs per second they completed. */
        double stop() {
            stopping = true;
            long deadline = System.nanoTime() + 30 * SECOND;
            while (outstanding > 0) {
                client.poll();
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(outstanding + " busy READs did not complete within 30 s");
                }
            }
            if (error != null) {
                throw error;
            }
            return completed * 1e9 / (System.nanoTime() - started);
        }

        @Override
        public void completed(long context, int bytes) {
            outstanding--;
            completed++;
            if (!stopping) {
                post(context);
            }
        }

        @Override
        public void failed(long context, RdmaException e) {
            outstanding--;
            stopping = true;
            error = error == null ? e : error;
        }
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /** Heap used after a full GC, direct buffer bytes, and the resident set (VmRSS), in bytes. */
    private static long[] memory() throws IOException, InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
        long rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).findFirst().orElse(0);
        return new long[] {heap, direct, rss};
    }

    // ---------------------------------------------------------------------------------------------- set-up rate

    /** Connect+accept per second with {@code connectors} threads, each connecting, waiting and closing in turn. */
    private static double softSetupRate(int connectors, double seconds) throws Exception {
        RdmaRuntime server = Pair.builder("soft").threadNamePrefix("rate-server").listenBacklog(BACKLOG).build();
        RdmaRuntime client = Pair.builder("soft").threadNamePrefix("rate-client").build();
        try {
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.onRequest(r -> r.accept().thenAccept(RdmaConnection::close));
            InetSocketAddress to = listener.localAddress();
            return rate(connectors, seconds, () -> client.connector().connect(to).start()
                    .get(10, TimeUnit.SECONDS).close());
        } finally {
            client.close();
            server.close();
        }
    }

    /** The same with plain TCP: a blocking connect, a 1-byte round trip, close; a one-thread NIO echo server. */
    private static double tcpSetupRate(int connectors, double seconds) throws Exception {
        try (TcpEcho echo = new TcpEcho()) {
            return rate(connectors, seconds, () -> {
                try (SocketChannel ch = SocketChannel.open()) {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ch.connect(echo.address);
                    ch.write(ByteBuffer.wrap(new byte[] {1}));
                    if (ch.read(ByteBuffer.allocate(1)) != 1) {
                        throw new IOException("the echo server closed without answering");
                    }
                }
            });
        }
    }

    /** One connect, established, and closed. */
    private interface Connect {
        void run() throws Exception;
    }

    /** Runs {@code connect} on {@code threads} threads: a warm-up of half of {@code seconds}, then counts. */
    private static double rate(int threads, double seconds, Connect connect) throws Exception {
        long warmEnd = System.nanoTime() + (long) (seconds * SECOND / 2);
        long end = warmEnd + (long) (seconds * SECOND);
        LongAdder done = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    long now;
                    do {
                        connect.run();
                        now = System.nanoTime();
                        if (now - warmEnd >= 0 && now - end < 0) {
                            done.increment();
                        }
                    } while (now - end < 0 && failure.get() == null);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "connector-" + i);
            t.start();
            running.add(t);
        }
        for (Thread t : running) {
            t.join(TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()) + 30_000);
            if (t.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException(t.getName() + " still runs 30 s after the end"));
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("set-up rate with " + threads + " connectors failed", failure.get());
        }
        return done.sum() / seconds;
    }

    /** A one-thread NIO server on loopback that answers each connection's byte and closes it. */
    private static final class TcpEcho implements AutoCloseable {
        final InetSocketAddress address;
        private final ServerSocketChannel listener;
        private final Selector selector;
        private final Thread thread;
        private volatile boolean running = true;

        TcpEcho() throws IOException {
            listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    BACKLOG);
            address = (InetSocketAddress) listener.getLocalAddress();
            listener.configureBlocking(false);
            selector = Selector.open();
            listener.register(selector, SelectionKey.OP_ACCEPT);
            thread = new Thread(this::serve, "tcp-echo");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve() {
            ByteBuffer one = ByteBuffer.allocateDirect(1);
            try {
                while (running) {
                    selector.select(key -> {
                        try {
                            if (key.isAcceptable()) {
                                SocketChannel ch;
                                while ((ch = listener.accept()) != null) {
                                    ch.configureBlocking(false);
                                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                                    ch.register(selector, SelectionKey.OP_READ);
                                }
                            } else if (key.isReadable()) {
                                SocketChannel ch = (SocketChannel) key.channel();
                                one.clear();
                                if (ch.read(one) == 1) {
                                    ch.write(one.flip());
                                }
                                ch.close();
                            }
                        } catch (IOException e) {
                            key.cancel();
                        }
                    }, 100);
                }
            } catch (IOException e) {
                if (running) {
                    throw new IllegalStateException("the TCP echo server failed", e);
                }
            }
        }

        @Override
        public void close() throws Exception {
            running = false;
            selector.wakeup();
            thread.join(10_000);
            selector.close();
            listener.close();
        }
    }

    // ------------------------------------------------------------------------------------------------------ main

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
    }

    /** Fails with what to do when the process may open fewer descriptors than {@code n} connections need. */
    private static void checkDescriptors(int n) {
        long need = 2L * n + (n + PER_LISTENER - 1) / PER_LISTENER + SPARE_DESCRIPTORS;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os
                && os.getMaxFileDescriptorCount() < need) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%d connections need about %d file descriptors"
                    + " (both ends are in this process), but the limit is %d: raise it first, e.g. 'ulimit -n 65536' "
                    + "(as root) or 'prlimit --nofile=65536 --pid <shell pid>'", n, need,
                    os.getMaxFileDescriptorCount()));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: ConnectionScale COUNTS CONNECTORS SECONDS OUT.json");
        }
        int[] counts = ints(args[0]);
        int[] connectors = ints(args[1]);
        double seconds = Double.parseDouble(args[2]);
        checkDescriptors(Arrays.stream(counts).max().orElse(1));
        measure(1, seconds); // warms up the code the first count would otherwise run cold
        List<String> rows = new ArrayList<>();
        for (int n : counts) {
            rows.add(measure(n, seconds));
            System.out.println(rows.get(rows.size() - 1));
        }
        List<String> rates = new ArrayList<>();
        for (int c : connectors) {
            double tcp = tcpSetupRate(c, seconds);
            double soft = softSetupRate(c, seconds);
            rates.add(String.format(Locale.ROOT, "{\"connectors\": %d, \"softPerSecond\": %.1f, \"tcpPerSecond\": %.1f, "
                    + "\"ratio\": %.3f}", c, soft, tcp, soft / tcp));
            System.out.println(rates.get(rates.size() - 1));
        }
        String json = String.format(Locale.ROOT, "{\"provider\": \"soft\", \"cores\": %d, \"inFlight\": %d, "
                        + "\"perListener\": %d, \"bothEndsInProcess\": true, \"seconds\": %s, \"results\": [%n  %s%n], "
                        + "\"setupRate\": [%n  %s%n]}%n", Runtime.getRuntime().availableProcessors(), IN_FLIGHT,
                PER_LISTENER, args[2], String.join(",\n  ", rows), String.join(",\n  ", rates));
        Files.writeString(Path.of(args[3]), json, StandardCharsets.UTF_8);
    }
}
