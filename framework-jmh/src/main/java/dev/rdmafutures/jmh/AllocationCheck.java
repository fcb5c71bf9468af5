package dev.rdmafutures.jmh;

import dev.rdmafutures.Completion;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.OperationFlag;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.ScatterGatherList;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * Counts, exactly, the bytes one data-path operation allocates in steady state: on the thread that posts and
 * completes it (an application-driven client runtime, so every step of the client's provider runs there too) and
 * on the server runtime's poller thread, read from {@link com.sun.management.ThreadMXBean} around a run of
 * operations after a warm-up. JMH's {@code -prof gc} divides the whole JVM's allocation, its own threads included,
 * by the operations: for an emulated READ of milliseconds that background alone shows as tens of bytes per
 * operation. This check has no background to subtract.
 *
 * <p>For the future path it also measures, in the same JVM, what one {@link CompletableFuture} completed with one
 * {@link Completion} costs: the budget "one future per operation" is judged against.
 *
 * <p>Usage: {@code AllocationCheck PROVIDER SIZES WARMUP OPERATIONS OUT.json} (SIZES comma-separated); for
 * {@code verbs}, {@code -Dbench.device} and {@code -Dbench.address} as for the benchmarks.
 */
public final class AllocationCheck {
    /**
     * What one measured run posts per iteration: one buffer, or (the *_4SGE kinds) a reused scatter-gather list
     * that cuts the same bytes into four segments.
     */
    enum Kind { READ, WRITE, SEND_RECEIVE, READ_4SGE, WRITE_4SGE, SEND_RECEIVE_4SGE }

    private static final OperationFlag[] NO_FLAGS = {};
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Pair pair;
    private final int size;
    private final long serverThread;
    private final Waiter waiter = new Waiter();
    /** The client buffer's first {@code size} bytes, then the next {@code size}, each cut into four segments. */
    private final ScatterGatherList first = new ScatterGatherList(4);
    private final ScatterGatherList second = new ScatterGatherList(4);

    private AllocationCheck(String provider, int size) throws Exception {
        IdleStrategy serverIdle = provider.equals("soft") ? IdleStrategy.BUSY_SPIN : IdleStrategy.BLOCKING;
        this.pair = new Pair(provider, Driver.INVOKED, serverIdle, size * (SendPingPongBenchmark.RECEIVES + 1), 16);
        this.size = size;
        this.serverThread = serverPollerThread();
        quarters(first, 0);
        quarters(second, size);
        new SendPingPongBenchmark.Echo(pair, size).start();
    }

    /** Four segments covering {@code size} bytes of the client region from {@code base}. */
    private void quarters(ScatterGatherList list, int base) {
        int quarter = size / 4;
        for (int i = 0; i < 3; i++) {
            list.add(pair.clientRegion, base + i * quarter, quarter);
        }
        list.add(pair.clientRegion, base + 3 * quarter, size - 3 * quarter);
    }

    private static long serverPollerThread() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("bench-server")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no bench-server poller thread")).getId();
    }

    /** Operations the client posts per iteration of {@code kind}. */
    private static int operationsPerIteration(Kind kind) {
        return kind == Kind.SEND_RECEIVE || kind == Kind.SEND_RECEIVE_4SGE ? 2 : 1;
    }

    private void iterate(Kind kind, Api api) {
        RdmaConnection c = pair.client;
        if (api == Api.FUTURE) {
            switch (kind) {
                case READ -> c.read(pair.clientRegion, 0, pair.serverBuffer, 0, size).join();
                case WRITE -> c.write(pair.clientRegion, 0, pair.serverBuffer, 0, size).join();
                case SEND_RECEIVE -> {
                    CompletableFuture<Completion> reply = c.receive(pair.clientRegion, 0, size);
                    CompletableFuture<Completion> sent = c.send(pair.clientRegion, size, size);
                    reply.join();
                    sent.join();
                }
                case READ_4SGE -> c.read(first, pair.serverBuffer, 0, NO_FLAGS).join();
                case WRITE_4SGE -> c.write(first, pair.serverBuffer, 0, NO_FLAGS).join();
                case SEND_RECEIVE_4SGE -> {
                    CompletableFuture<Completion> reply = c.receive(first);
                    CompletableFuture<Completion> sent = c.send(second, NO_FLAGS);
                    reply.join();
                    sent.join();
                }
            }
            return;
        }
        waiter.arm(operationsPerIteration(kind));
        switch (kind) {
            case READ -> c.read(pair.clientRegion, 0, pair.serverBuffer, 0, size, waiter, 0);
            case WRITE -> c.write(pair.clientRegion, 0, pair.serverBuffer, 0, size, waiter, 0);
            case SEND_RECEIVE -> {
                c.receive(pair.clientRegion, 0, size, waiter, 0);
                c.send(pair.clientRegion, size, size, waiter, 1);
            }
            case READ_4SGE -> c.read(first, pair.serverBuffer, 0, waiter, 0);
            case WRITE_4SGE -> c.write(first, pair.serverBuffer, 0, waiter, 0);
            case SEND_RECEIVE_4SGE -> {
                c.receive(first, waiter, 0);
                c.send(second, waiter, 1);
            }
        }
        pair.await(waiter);
        waiter.result();
    }

    /**
     * Bytes per operation on the client thread and on the server's poller thread, after {@code warmup}: the smaller
     * of two consecutive runs, per thread. Something allocated once (a class initialised, code deoptimised) lands
     * in one run only; garbage per operation, at least 16 bytes each time, lands in both.
     */
    private double[] measure(Kind kind, Api api, int warmup, int iterations) {
        for (int i = 0; i < warmup; i++) {
            iterate(kind, api);
        }
        double[] first = measureOnce(kind, api, iterations);
        double[] second = measureOnce(kind, api, iterations);
        return new double[] {Math.min(first[0], second[0]), Math.min(first[1], second[1])};
    }

    private double[] measureOnce(Kind kind, Api api, int iterations) {
        long client = THREADS.getCurrentThreadAllocatedBytes();
        long server = THREADS.getThreadAllocatedBytes(serverThread);
        for (int i = 0; i < iterations; i++) {
            iterate(kind, api);
        }
        double operations = (double) iterations * operationsPerIteration(kind);
        return new double[] {(THREADS.getCurrentThreadAllocatedBytes() - client) / operations,
                (THREADS.getThreadAllocatedBytes(serverThread) - server) / operations};
    }

    /** What one future completed with one {@link Completion} allocates on this JVM. */
    static double futureBudget(int count) {
        Object[] kept = new Object[count]; // kept, so that escape analysis cannot remove them
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < count; i++) {
            CompletableFuture<Completion> f = new CompletableFuture<>();
            f.complete(Completion.of(i));
            kept[i] = f;
        }
        return (THREADS.getCurrentThreadAllocatedBytes() - before) / (double) count;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: AllocationCheck PROVIDER SIZES WARMUP OPERATIONS OUT.json");
        }
        String provider = args[0];
        int warmup = Integer.parseInt(args[2]);
        int iterations = Integer.parseInt(args[3]);
        futureBudget(iterations); // warm up the measurement itself
        double budget = futureBudget(iterations);
        List<String> results = new ArrayList<>();
        for (String s : args[1].split(",")) {
            int size = Integer.parseInt(s.trim());
            AllocationCheck check = new AllocationCheck(provider, size);
            try {
                for (Kind kind : Kind.values()) {
                    for (Api api : Api.values()) {
                        double[] perOp = check.measure(kind, api, warmup, iterations);
                        results.add(String.format(Locale.ROOT, "{\"op\": \"%s\", \"api\": \"%s\", \"size\": %d, "
                                        + "\"operations\": %d, \"clientBytesPerOp\": %.4f, \"serverBytesPerOp\": %.4f}",
                                kind, api, size, iterations * operationsPerIteration(kind), perOp[0], perOp[1]));
                        System.out.println(results.get(results.size() - 1));
                    }
                }
            } finally {
                check.pair.close();
            }
        }
        String json = String.format(Locale.ROOT, "{\"provider\": \"%s\", \"futureBudgetBytes\": %.2f, \"results\": [%n  %s%n]}%n",
                provider, budget, String.join(",\n  ", results));
        Files.writeString(Path.of(args[4]), json, StandardCharsets.UTF_8);
        System.out.printf(Locale.ROOT, "one future and its Completion: %.1f B%n", budget);
    }
}
