package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * How the cost of {@code soft} connections grows with their number (issue 16), on loopback.
 *
 * <p>For each count N: a server runtime in a child JVM ({@link ServerProcess}, {@link ScaleServer}; one
 * busy-spinning poller, one listener per {@value #PER_LISTENER} connections), and here an application-driven client
 * runtime ({@code pollerThreads(0)}) that this thread drives. Two processes, so that each holds one socket per
 * connection: 10,000 connections fit a limit of 20,000 descriptors per process, which an unprivileged process cannot
 * raise. It establishes N connections with at most {@value #IN_FLIGHT} connects in flight and reports the time; the
 * memory an idle connection holds, heap after a full GC plus direct buffers of both JVMs, before and after, divided by
 * N: a client end and a server end together (the resident sets' growth beside it; kernel socket memory is in
 * neither); then the round trip of an 8 B READ on one connection (callback API, busy-polling {@code poll()} as the
 * headline benchmark does) while the others are idle, and while a tenth of them each keep one 8 B READ outstanding,
 * re-posted from its callback. The busy connections belong to the same client runtime, so this thread's polls
 * complete their READs too and the server's one poller answers them all: a probe READ queues behind theirs, as it
 * would on any one poller serving them.
 *
 * <p>Every row carries the core-to-core probe ({@link CoreToCore}) taken before and after it: on a virtual machine
 * whose host moves its vCPUs, a loopback round trip follows their placement (near or far) by about 40%, more than
 * the effect measured here. A count whose placement differs from the first count's is measured again, at most
 * {@value #ATTEMPTS} times in all, so that the READ ratios compare like with like; the row says which attempt it is.
 *
 * <p>Then the set-up rate ({@link SetupRate}), in this process: connect+accept per second with each number of
 * concurrent connectors, beside plain TCP connect and one round trip on loopback, with the probe around both.
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
    /** Connections made and closed in each runtime pair before its memory is measured. */
    private static final int WARM_UP = 16;
    private static final int SIZE = 8;
    private static final long SECOND = 1_000_000_000L;
    private static final int MAX_SAMPLES = 1 << 20;
    /** Measurements of one count at most, until its vCPU placement matches the first count's. */
    private static final int ATTEMPTS = 3;

    private final ServerProcess server;
    private final RdmaRuntime client;
    private final MemoryRegion clientRegion;
    /**
     * Connection {@code i}'s local side (the probe and the warm-up: 0), {@value #SIZE} bytes from {@code i * SIZE},
     * built once: a slice per READ would allocate one per operation.
     */
    private final RegionSlice[] slots;
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
        slots = Posts.slots(clientRegion, n / 10 + 1, SIZE);
    }

    private void close() {
        client.close();
        server.close();
    }

    /** A count's row of the report and the vCPU placement it was measured in. */
    private record Row(String json, CoreToCore.Span placement) {
    }

    /**
     * {@code n}'s row, measured again (at most {@value #ATTEMPTS} times in all) while the vCPU placement around it
     * differs from {@code reference} ("near" or "far"; null: any placement where both probes agree).
     */
    private static Row measureLike(int n, double seconds, String reference) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Row row = measure(n, seconds, attempt);
            String mode = row.placement().mode();
            if (mode.equals(reference) || reference == null && !mode.equals("changed") || attempt == ATTEMPTS) {
                return row;
            }
            System.out.printf("%d connections measured with the vCPUs %s, the reference row %s: again%n", n, mode,
                    reference == null ? "not settled" : "with them " + reference);
        }
    }

    /** One count's row of the report, with the core-to-core probe ({@link CoreToCore}) before and after it. */
    private static Row measure(int n, double seconds, int attempt) throws Exception {
        double placementBefore = CoreToCore.roundTripNanos();
        ConnectionScale s = new ConnectionScale(n);
        String row;
        try {
            s.warmUp();
            long[] before = s.memory();
            long start = System.nanoTime();
            s.establish(n);
            double establishSeconds = (System.nanoTime() - start) / 1e9;
            long[] after = s.memory();
            String idle = s.readLatency(seconds, 0);
            String busy = n >= 10 ? s.readLatency(seconds, n / 10) : "null";
            row = String.format(Locale.ROOT, "{\"connections\": %d, \"listeners\": %d, \"establishSeconds\": %.4f, "
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
        CoreToCore.Span placement = new CoreToCore.Span(placementBefore, CoreToCore.roundTripNanos());
        return new Row(String.format(Locale.ROOT, "%s, \"attempt\": %d, \"placement\": %s}",
                row.substring(0, row.length() - 1), attempt, placement.json()), placement);
    }

    /** {@link #memory()} of this process plus the server's. */
    private long[] memory() throws IOException, InterruptedException {
        long[] here = ScaleServer.memory();
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
                Posts.check(c.read(slots[0], server.buffer, 0, OperationFlags.NONE, w, 0), "READ");
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
            Posts.check(probe.read(slots[0], server.buffer, 0, OperationFlags.NONE, w, 0), "READ");
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

        /** Posts connection {@code i}'s READ; a refusal stops the load as a failed READ does (it is not in flight). */
        private void post(long i) {
            outstanding++;
            Status status = connections[(int) i].read(slots[(int) i], server.buffer, 0, OperationFlags.NONE, this, i);
            if (status != Status.SUCCESS) {
                failed(i, Posts.refusal(status, "READ"));
            }
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

    // ------------------------------------------------------------------------------------------------------ main

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: ConnectionScale COUNTS CONNECTORS SECONDS OUT.json");
        }
        int[] counts = ints(args[0]);
        int[] connectors = ints(args[1]);
        double seconds = Double.parseDouble(args[2]);
        ScaleServer.checkDescriptors(Arrays.stream(counts).max().orElse(1));
        measure(1, seconds, 0); // warms up the code the first count would otherwise run cold
        List<String> rows = new ArrayList<>();
        String reference = null;
        for (int n : counts) {
            Row row = measureLike(n, seconds, reference);
            String mode = row.placement().mode();
            reference = reference == null && !mode.equals("changed") ? mode : reference;
            rows.add(row.json());
            System.out.println(row.json());
        }
        List<String> rates = new ArrayList<>();
        for (int c : connectors) {
            double before = CoreToCore.roundTripNanos();
            SetupRate.Rate tcp = SetupRate.tcp(c, seconds);
            SetupRate.Rate soft = SetupRate.soft(c, seconds);
            CoreToCore.Span placement = new CoreToCore.Span(before, CoreToCore.roundTripNanos());
            rates.add(String.format(Locale.ROOT, "{\"connectors\": %d, \"softPerSecond\": %.1f, "
                            + "\"tcpPerSecond\": %.1f, \"ratio\": %.3f, \"softCpuMicrosPerConnect\": %.1f, "
                            + "\"tcpCpuMicrosPerConnect\": %.1f, \"placement\": %s}", c, soft.perSecond(),
                    tcp.perSecond(), soft.perSecond() / tcp.perSecond(), soft.cpuMicrosPerConnect(),
                    tcp.cpuMicrosPerConnect(), placement.json()));
            System.out.println(rates.get(rates.size() - 1));
        }
        String json = String.format(Locale.ROOT, "{\"provider\": \"soft\", \"cores\": %d, \"inFlight\": %d, "
                        + "\"perListener\": %d, \"serverInChildProcess\": true, \"seconds\": %s, "
                        + "\"results\": [%n  %s%n], \"setupRate\": [%n  %s%n]}%n",
                Runtime.getRuntime().availableProcessors(), IN_FLIGHT, PER_LISTENER, args[2],
                String.join(",\n  ", rows), String.join(",\n  ", rates));
        Files.writeString(Path.of(args[3]), json, StandardCharsets.UTF_8);
    }
}
