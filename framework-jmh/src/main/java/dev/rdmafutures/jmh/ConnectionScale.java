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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * How the cost of {@code soft} connections grows with their number (issue 16), on loopback.
 *
 * <p>For each count N: a server runtime (one busy-spinning poller, as in the READ benchmarks) in a child JVM,
 * listening on 127.0.0.1..127.0.0.k (one listener per {@value #PER_LISTENER} connections; Linux routes all of 127/8 to
 * lo), and here an application-driven client runtime ({@code pollerThreads(0)}) that this thread drives. Two
 * processes, so that each holds one socket per connection: 10,000 connections fit a limit of 20,000 descriptors per
 * process, which an unprivileged process cannot raise. It establishes N connections with at most
 * {@value #IN_FLIGHT} connects in flight and reports the time; the memory an idle connection holds, heap after a
 * full GC plus direct buffers of both JVMs, before and after, divided by N: a client end and a server end together
 * (the resident sets' growth beside it; kernel socket memory is in neither); then the round trip of an 8 B READ on
 * one connection (callback API, busy-polling {@code poll()} as the headline benchmark does) while the others are
 * idle, and while a tenth of them each keep one 8 B READ outstanding, re-posted from its callback. The busy
 * connections belong to the same client runtime, so this thread's polls complete their READs too and the server's
 * one poller answers them all: a probe READ queues behind theirs, as it would on any one poller serving them.
 *
 * <p>Then the set-up rate, in this process: connect+accept per second with each number of concurrent connectors
 * (threads that each connect, wait until established and close; one poller per runtime, backing off), beside plain
 * TCP on loopback with as many threads doing a blocking connect, a 1-byte round trip and close against a one-thread
 * NIO echo server.
 *
 * <p>Usage: {@code ConnectionScale COUNTS CONNECTORS SECONDS OUT.json} (lists comma-separated; SECONDS is each
 * latency and rate measurement's length, each after a warm-up of half of it). A first pass with one connection,
 * not reported, warms up the code. Each process needs a file descriptor per connection: it stops at once, saying
 * so, if the limit is lower.
 */
public final class ConnectionScale {
    /** Connects in flight while establishing: the listener's backlog holds them all. */
    static final int IN_FLIGHT = 64;
    /** Connections per listener address, well inside one address pair's ephemeral ports. */
    static final int PER_LISTENER = 2500;
    private static final int BACKLOG = 1024;
    /** Connections made and closed in each runtime pair before its memory is measured. */
    private static final int WARM_UP = 16;
    private static final int SIZE = 8;
    /** File descriptors the JVM, the selectors and the listeners need beside the connections' sockets. */
    private static final int SPARE_DESCRIPTORS = 256;
    private static final long SECOND = 1_000_000_000L;
    private static final int MAX_SAMPLES = 1 << 20;

    private final ServerProcess server;
    private final RdmaRuntime client;
    private final MemoryRegion clientRegion;
    private RdmaConnection[] connections;
    /** Establishing: connects started and finished, on this thread only (the client runtime completes here). */
    private int inFlight;
    private int established;
    private Throwable connectFailure;

    private ConnectionScale(int n) throws IOException {
        server = new ServerProcess(n);
        try {
            client = Pair.builder("soft").threadNamePrefix("scale-client").pollerThreads(0).build();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        clientRegion = client.register(ByteBuffer.allocateDirect(SIZE * (n / 10 + 1)), Access.LOCAL_WRITE);
    }

    private void close() {
        client.close();
        server.close();
    }

    /** One count's row of the report. */
    private static String measure(int n, double seconds) throws Exception {
        ConnectionScale s = new ConnectionScale(n);
        try {
            s.warmUp();
            long[] before = s.memory();
            long start = System.nanoTime();
            s.establish(n);
            double establishSeconds = (System.nanoTime() - start) / 1e9;
            long[] after = s.memory();
            String idle = s.readLatency(seconds, 0);
            String busy = n >= 10 ? s.readLatency(seconds, n / 10) : "null";
            return String.format(Locale.ROOT, "{\"connections\": %d, \"listeners\": %d, \"establishSeconds\": %.4f, "
                            + "\"connectsPerSecond\": %.1f, \"heapBytesPerConnection\": %.1f, "
                            + "\"directBytesPerConnection\": %.1f, \"memoryBytesPerConnection\": %.1f, "
                            + "\"rssBytesPerConnection\": %.1f, \"readIdle\": %s, \"readBusy\": %s}",
                    n, s.server.listeners.size(), establishSeconds, n / establishSeconds,
                    (after[0] - before[0]) / (double) n, (after[1] - before[1]) / (double) n,
                    (after[0] + after[1] - before[0] - before[1]) / (double) n, (after[2] - before[2]) / (double) n,
                    idle, busy);
        } finally {
            s.close();
        }
    }

    /** {@link #memory()} of this process plus the server's. */
    private long[] memory() throws IOException, InterruptedException {
        long[] here = memoryHere();
        long[] there = server.memory();
        return new long[] {here[0] + there[0], here[1] + there[1], here[2] + there[2]};
    }

    /**
     * Establishes {@value #WARM_UP} connections, moves a few READs on each, closes them and waits until both ends
     * have let them go: the classes and caches a first connection brings into either JVM are then in the memory
     * measured before, not counted as the first connections' cost.
     */
    private void warmUp() {
        establish(WARM_UP);
        Waiter w = new Waiter();
        for (RdmaConnection c : connections) {
            for (int i = 0; i < 100; i++) {
                w.arm(1);
                c.read(clientRegion, 0, server.buffer, 0, SIZE, w, 0);
                await(w);
                w.result();
            }
            c.close();
        }
        connections = null; // an ended connection's object still holds its buffers
        long deadline = System.nanoTime() + 30 * SECOND;
        while (client.metrics().open() > 0 || server.state()[1] > 0) {
            for (int i = 0; i < 1000; i++) {
                client.poll();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the warm-up connections did not end within 30 s");
            }
        }
    }

    /** Establishes {@code n} connections, {@value #IN_FLIGHT} at most in flight, until both ends report them. */
    private void establish(int n) {
        connections = new RdmaConnection[n];
        established = 0;
        long accepts = server.state()[0] + n;
        long deadline = System.nanoTime() + 60 * SECOND + n * 10_000_000L;
        int started = 0;
        while (established < n) {
            while (inFlight < IN_FLIGHT && started < n) {
                int i = started++;
                inFlight++;
                CompletableFuture<RdmaConnection> f = client.connector()
                        .connect(server.listeners.get(i % server.listeners.size())).start();
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
            if (connectFailure != null) {
                throw new IllegalStateException("connection " + (established + 1) + " of " + n + " failed",
                        connectFailure);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + established + " of " + n + " connections established "
                        + "before the deadline");
            }
        }
        // The server reports each connection once the client's RTR arrived: poll on until it has them all.
        while (server.state()[0] < accepts) {
            for (int i = 0; i < 1000; i++) {
                client.poll();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the server accepted only " + (n - accepts + server.state()[0])
                        + " of " + n + " connections before the deadline");
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
            probe.read(clientRegion, 0, server.buffer, 0, SIZE, w, 0);
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
            connections[(int) i].read(clientRegion, SIZE * (int) i, server.buffer, 0, SIZE, this, i);
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

    /**
     * Heap used after a full GC, direct buffer bytes, and the resident set (VmRSS) of this JVM, in bytes. A direct
     * buffer's memory is freed by its cleaner after the GC found it unreachable, so it collects until two readings in
     * a row agree (at most 3 s).
     */
    private static long[] memoryHere() throws IOException, InterruptedException {
        long heap = -1;
        long direct = -1;
        for (int i = 0; i < 30; i++) {
            System.gc();
            Thread.sleep(100);
            long h = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long d = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                    .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
            if (h == heap && d == direct) {
                break;
            }
            heap = h;
            direct = d;
        }
        long rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).findFirst().orElse(0);
        return new long[] {heap, direct, rss};
    }

    /**
     * The server end of the connections, in a child JVM (this class with {@code --server N}), so that each process
     * holds one socket per connection: 10,000 connections then fit a limit of 20,000 descriptors per process. It
     * listens on 127.0.0.1..127.0.0.k, accepts every request and answers one-line commands on its standard input.
     */
    private static final class ServerProcess implements AutoCloseable {
        private static final String ENDED = "";
        final List<InetSocketAddress> listeners = new ArrayList<>();
        final RemoteBuffer buffer;
        private final Process process;
        private final PrintWriter commands;
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

        ServerProcess(int n) throws IOException {
            process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel="
                            + System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"),
                    "-cp", System.getProperty("java.class.path"), ConnectionScale.class.getName(), "--server",
                    Integer.toString(n)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = process.inputReader(StandardCharsets.UTF_8)) {
                    for (String line; (line = r.readLine()) != null; ) {
                        answers.add(line);
                    }
                } catch (IOException e) {
                    // the process ended: ENDED says so
                } finally {
                    answers.add(ENDED);
                }
            }, "scale-server-output");
            reader.setDaemon(true);
            reader.start();
            try {
                String[] listening = expect("listening");
                for (int i = 1; i < listening.length; i++) {
                    int colon = listening[i].lastIndexOf(':');
                    listeners.add(new InetSocketAddress(InetAddress.getByName(listening[i].substring(0, colon)),
                            Integer.parseInt(listening[i].substring(colon + 1))));
                }
                buffer = RemoteBuffer.decode(HexFormat.of().parseHex(expect("region")[1]));
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        /** Connections the server accepted (established) so far, and those of them open now. */
        long[] state() {
            String[] a = ask("state");
            return new long[] {Long.parseLong(a[1]), Long.parseLong(a[2])};
        }

        /** Heap after a full GC, direct and resident bytes of the server process. */
        long[] memory() {
            String[] m = ask("memory");
            return new long[] {Long.parseLong(m[1]), Long.parseLong(m[2]), Long.parseLong(m[3])};
        }

        private String[] ask(String command) {
            commands.println(command);
            return expect(command);
        }

        /** The server's next line, which must start with {@code word}. */
        private String[] expect(String word) {
            String line;
            try {
                line = answers.poll(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the server process", e);
            }
            if (line == null || line.equals(ENDED)) {
                throw new IllegalStateException(line == null ? "the server process did not answer '" + word
                        + "' within 60 s" : "the server process ended before it answered '" + word + "'");
            }
            String[] fields = line.split(" ");
            if (!fields[0].equals(word)) {
                throw new IllegalStateException("the server process answered '" + word + "' with: " + line);
            }
            return fields;
        }

        @Override
        public void close() {
            commands.println("quit");
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The child's side of {@link ServerProcess}: serves {@code n} connections until told to quit. */
    private static void serve(int n) throws IOException, InterruptedException {
        AtomicInteger accepted = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (RdmaRuntime server = Pair.builder("soft").threadNamePrefix("scale-server").pollerThreads(1)
                .idleStrategy(IdleStrategy.BUSY_SPIN).listenBacklog(BACKLOG).build()) {
            StringBuilder listening = new StringBuilder("listening");
            for (int i = 0; i < (n + PER_LISTENER - 1) / PER_LISTENER; i++) {
                RdmaListener l = server.listen(new InetSocketAddress(InetAddress.getByAddress(
                        new byte[] {127, 0, 0, (byte) (i + 1)}), 0));
                l.onRequest(r -> r.accept().whenComplete((c, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else {
                        accepted.incrementAndGet();
                    }
                }));
                listening.append(' ').append(l.localAddress().getAddress().getHostAddress()).append(':')
                        .append(l.localAddress().getPort());
            }
            System.out.println(listening);
            MemoryRegion region = server.register(ByteBuffer.allocateDirect(SIZE), Access.LOCAL_WRITE,
                    Access.REMOTE_READ);
            System.out.println("region " + HexFormat.of().formatHex(region.remote().encode()));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command; (command = in.readLine()) != null && !command.equals("quit"); ) {
                switch (command) {
                    case "state" -> System.out.println(failure.get() != null ? "error an accept failed: "
                            + failure.get() : "state " + accepted.get() + " " + server.metrics().open());
                    case "memory" -> {
                        long[] m = memoryHere();
                        System.out.println("memory " + m[0] + " " + m[1] + " " + m[2]);
                    }
                    default -> System.out.println("error unknown command: " + command);
                }
            }
        }
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
        long need = n + (n + PER_LISTENER - 1) / PER_LISTENER + SPARE_DESCRIPTORS;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os
                && os.getMaxFileDescriptorCount() < need) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%d connections need about %d file descriptors"
                    + " in each of the two processes, but the limit is %d: raise it first, e.g. 'ulimit -n 65536' "
                    + "(as root) or 'prlimit --nofile=65536 --pid <shell pid>'", n, need,
                    os.getMaxFileDescriptorCount()));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--server")) {
            checkDescriptors(Integer.parseInt(args[1]));
            serve(Integer.parseInt(args[1]));
            return;
        }
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
                        + "\"perListener\": %d, \"serverInChildProcess\": true, \"seconds\": %s, \"results\": [%n  %s%n], "
                        + "\"setupRate\": [%n  %s%n]}%n", Runtime.getRuntime().availableProcessors(), IN_FLIGHT,
                PER_LISTENER, args[2], String.join(",\n  ", rows), String.join(",\n  ", rates));
        Files.writeString(Path.of(args[3]), json, StandardCharsets.UTF_8);
    }
}
