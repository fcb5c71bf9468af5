package dev.rdmafutures.jmh;

import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
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
 * <p>Beside them, for each size, a {@code READ_REFUSED} row of the callback API: what a callback-form READ that is
 * refused costs. The initiator queue is filled with READs first (the client is application-driven: none completes
 * until it polls), so that each measured post returns {@link Status#INSUFFICIENT_RESOURCES}; a refusal builds no
 * exception and calls no callback, so it too should allocate nothing. Its {@code operations} are the refused posts.
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

    /** The refusal row's name: a callback-form READ refused for want of a queue slot. */
    static final String READ_REFUSED = "READ_REFUSED";
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Pair pair;
    private final int size;
    private final long serverThread;
    private final Waiter waiter = new Waiter();
    /** The READs that hold the initiator queue full while refused posts are measured. */
    private final Filler filler = new Filler();
    /** The client buffer's first {@code size} bytes, then the next {@code size}, made once: posts allocate none. */
    private final RegionSlice head;
    private final RegionSlice next;
    /** The same bytes as {@link #head} and {@link #next}, each cut into four segments. */
    private final ScatterGatherList first = new ScatterGatherList(4);
    private final ScatterGatherList second = new ScatterGatherList(4);

    private AllocationCheck(String provider, int size) throws Exception {
        IdleStrategy serverIdle = provider.equals("soft") ? IdleStrategy.BUSY_SPIN : IdleStrategy.BLOCKING;
        this.pair = new Pair(provider, Driver.INVOKED, serverIdle, size * (SendPingPongBenchmark.RECEIVES + 1), 16);
        this.size = size;
        this.serverThread = serverPollerThread();
        head = pair.clientRegion.slice(0, size);
        next = pair.clientRegion.slice(size, size);
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
                case READ -> c.read(head, pair.serverBuffer, 0, OperationFlags.NONE).join();
                case WRITE -> c.write(head, pair.serverBuffer, 0, OperationFlags.NONE).join();
                case SEND_RECEIVE -> {
                    CompletableFuture<Completion> reply = c.receive(head);
                    CompletableFuture<Completion> sent = c.send(next, OperationFlags.NONE);
                    reply.join();
                    sent.join();
                }
                case READ_4SGE -> c.read(first, pair.serverBuffer, 0, OperationFlags.NONE).join();
                case WRITE_4SGE -> c.write(first, pair.serverBuffer, 0, OperationFlags.NONE).join();
                case SEND_RECEIVE_4SGE -> {
                    CompletableFuture<Completion> reply = c.receive(first);
                    CompletableFuture<Completion> sent = c.send(second, OperationFlags.NONE);
                    reply.join();
                    sent.join();
                }
            }
            return;
        }
        waiter.arm(operationsPerIteration(kind));
        switch (kind) {
            case READ -> Posts.check(c.read(head, pair.serverBuffer, 0, OperationFlags.NONE, waiter, 0), "READ");
            case WRITE -> Posts.check(c.write(head, pair.serverBuffer, 0, OperationFlags.NONE, waiter, 0), "WRITE");
            case SEND_RECEIVE -> {
                Posts.check(c.receive(head, waiter, 0), "RECEIVE");
                Posts.check(c.send(next, OperationFlags.NONE, waiter, 1), "SEND");
            }
            case READ_4SGE -> Posts.check(c.read(first, pair.serverBuffer, 0, OperationFlags.NONE, waiter, 0), "READ");
            case WRITE_4SGE -> Posts.check(c.write(first, pair.serverBuffer, 0, OperationFlags.NONE, waiter, 0),
                    "WRITE");
            case SEND_RECEIVE_4SGE -> {
                Posts.check(c.receive(first, waiter, 0), "RECEIVE");
                Posts.check(c.send(second, OperationFlags.NONE, waiter, 1), "SEND");
            }
        }
        pair.await(waiter);
        waiter.result();
    }

    /**
     * Bytes per refused callback-form READ on the client thread and on the server's poller thread, as
     * {@link #measure} takes them: after {@code warmup} refusals, the smaller of two runs of {@code refusals}; then
     * the refusals of the run with fewer.
     */
    private double[] measureRefusals(int warmup, int refusals) {
        refuse(warmup);
        double[] first = refuse(refusals);
        double[] second = refuse(refusals);
        return new double[] {Math.min(first[0], second[0]), Math.min(first[1], second[1]),
                Math.min(first[2], second[2])};
    }

    /**
     * Fills the client's initiator queue with READs, counts the bytes {@code refusals} further READs allocate,
     * each of which must be refused with {@link Status#INSUFFICIENT_RESOURCES}, then lets the READs that filled the
     * queue complete. Nothing polls the application-driven client meanwhile, so no slot frees up; a post accepted
     * all the same joins the filling READs and is not counted. Returns the bytes per refusal of each thread and the
     * refusals.
     */
    private double[] refuse(int refusals) {
        RdmaConnection c = pair.client;
        filler.outstanding = 0;
        for (int slots = c.availableInitiatorSlots(); slots > 0; slots--) {
            Posts.check(c.read(head, pair.serverBuffer, 0, OperationFlags.NONE, filler, 0), "filling READ");
            filler.outstanding++;
        }
        int refused = 0;
        Status unexpected = null;
        long client = THREADS.getCurrentThreadAllocatedBytes();
        long server = THREADS.getThreadAllocatedBytes(serverThread);
        for (int i = 0; i < refusals; i++) {
            Status status = c.read(head, pair.serverBuffer, 0, OperationFlags.NONE, filler, 1);
            if (status == Status.INSUFFICIENT_RESOURCES) {
                refused++;
            } else if (status == Status.SUCCESS) {
                filler.outstanding++;
            } else {
                unexpected = status;
                break;
            }
        }
        long clientBytes = THREADS.getCurrentThreadAllocatedBytes() - client;
        long serverBytes = THREADS.getThreadAllocatedBytes(serverThread) - server;
        filler.drain();
        if (unexpected != null || refused == 0 && refusals > 0) {
            throw new IllegalStateException("a READ on a full initiator queue: expected "
                    + Status.INSUFFICIENT_RESOURCES + ", got " + (unexpected == null ? Status.SUCCESS : unexpected));
        }
        double per = Math.max(1, refused);
        return new double[] {clientBytes / per, serverBytes / per, refused};
    }

    /** The READs that fill the initiator queue: counted down as they complete, drained by polling the client. */
    private final class Filler implements CompletionCallback {
        int outstanding;
        private RdmaException error;

        void drain() {
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (outstanding > 0) {
                pair.clientRuntime.poll();
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(outstanding + " filling READs did not complete within 20 s");
                }
            }
            if (error != null) {
                RdmaException e = error;
                error = null;
                throw e;
            }
        }

        @Override
        public void completed(long context, int bytes) {
            outstanding--;
        }

        @Override
        public void failed(long context, RdmaException e) {
            outstanding--;
            error = error == null ? e : error;
        }
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

    /** One row of the output: bytes per operation on the client thread and on the server's poller thread. */
    private static String row(String op, Api api, int size, int operations, double[] perOp) {
        return String.format(Locale.ROOT, "{\"op\": \"%s\", \"api\": \"%s\", \"size\": %d, "
                        + "\"operations\": %d, \"clientBytesPerOp\": %.4f, \"serverBytesPerOp\": %.4f}",
                op, api, size, operations, perOp[0], perOp[1]);
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
                        results.add(row(kind.name(), api, size, iterations * operationsPerIteration(kind), perOp));
                        System.out.println(results.get(results.size() - 1));
                    }
                }
                // judged as the callback rows are: 0 B per refused post
                double[] perRefusal = check.measureRefusals(warmup, iterations);
                results.add(row(READ_REFUSED, Api.CALLBACK, size, (int) perRefusal[2], perRefusal));
                System.out.println(results.get(results.size() - 1));
            } finally {
                check.pair.close();
            }
        }
        String json = String.format(Locale.ROOT,
                "{\"provider\": \"%s\", \"futureBudgetBytes\": %.2f, \"results\": [%n  %s%n]}%n",
                provider, budget, String.join(",\n  ", results));
        Files.writeString(Path.of(args[4]), json, StandardCharsets.UTF_8);
        System.out.printf(Locale.ROOT, "one future and its Completion: %.1f B%n", budget);
    }
}
