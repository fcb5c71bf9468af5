package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectBuilder;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The rate of many small operations in flight (issue 23, item 1), beside a socket baseline of the same shape measured
 * in the same run. For each op, size, window (operations in flight per connection) and number of connections:
 * <ul>
 *   <li>RDMA: a client runtime here, driven by this thread ({@code pollerThreads(0)}; {@code -Dbench.driver} picks a
 *   {@link Driver} with a poller thread instead), and a server runtime with one busy-spinning poller in a child JVM
 *   ({@link MessageRatePeer}; with verbs a blocking one for READ and WRITE, which the device answers). Every
 *   connection keeps {@code window} READs, WRITEs or SENDs in flight, each re-posted from its completion callback
 *   (the allocation-free form); a SEND lands in one of the receives the server posted (ib_send_bw's receive depth,
 *   {@link SendCredits#RECEIVE_DEPTH}), which it re-posts from the receive's completion; on verbs, where a Send that finds no
 *   receive ends the stream (iWARP) or waits out an RNR timer (RoCE), it leaves only while the server granted it
 *   ({@link SendCredits}: a 16 B WRITE per 64 receives); soft holds such a Send until a receive is posted.</li>
 *   <li>NIO: request/response over TCP with as many connections and requests in flight, one busy-polling thread per
 *   side, the server in the same child JVM ({@link PipelinedNio}, which gives the message sizes and why the baseline
 *   of WRITE and SEND is disfavoured).</li>
 * </ul>
 * Before the first row, each operation of the run loads both systems once as an unrecorded row of window 16 on one
 * connection, {@code -Dbench.jitwarmup} seconds long (default 1; 0 skips it) after its own warm-up as below: from a
 * cold JVM the RDMA path took about 1.75 s to reach its compiled speed and the baseline's much smaller loop a quarter
 * of that, so without it the first rows measured the JIT more than either system. Each row is warmed up for half of
 * SECONDS
 * ({@code -Dbench.warmup=SECONDS} sets another time: under TCG the JIT needs seconds), then measured for SECONDS:
 * operations per second, and the CPU time (user and system, all threads) per operation of the client process and
 * of the server process, each read at the start and the end of the measurement (Linux counts it in clock ticks,
 * 10 ms: about 1% of a 1 s measurement). With the default driver each side has one busy thread in both systems;
 * the other system's server side is closed meanwhile. Every operation posted must complete (every SEND be
 * received) or the run fails.
 *
 * <p>{@code soft} on loopback (CRC off, as {@link Pair} has it); {@code -Dbench.provider=verbs} with
 * {@code -Dbench.device} and {@code -Dbench.address} as for {@link Pair}, the baseline then on that address too.
 * {@code -Dbench.framed=true} makes the READ baseline parse, check and copy each message ({@link PipelinedNio}); its
 * rows say {@code "nio_framed": true}. {@code -Dbench.baseline=none} measures RDMA alone (rows without the NIO
 * fields): in the RDMA VM the reference is perftest on the same device, run by the script, and the baseline would
 * only take its time.
 *
 * <p>Usage: {@code MessageRate OPS SIZES WINDOWS CONNECTIONS SECONDS OUT.json} (lists comma-separated, e.g.
 * {@code READ,WRITE,SEND 8,4096 1,16,64 1,8 1 msgrate.json}).
 */
public final class MessageRate {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final boolean BASELINE = switch (System.getProperty("bench.baseline", "nio")) {
        case "nio" -> true;
        case "none" -> false;
        default -> throw new IllegalArgumentException("bench.baseline: nio or none, not "
                + System.getProperty("bench.baseline"));
    };
    /** Seconds of warm-up before each measurement; half of SECONDS when not set. */
    private static final String WARM_UP_SECONDS = System.getProperty("bench.warmup");
    private static final long JIT_WARM_UP_NANOS =
            (long) (Double.parseDouble(System.getProperty("bench.jitwarmup", "1")) * 1e9);
    private static final int JIT_WARM_UP_WINDOW = 16;
    /** How often a thread that does not poll looks for a grant while Sends wait for one. */
    private static final long PARKED_CHECK_NANOS = 20_000;
    private static final com.sun.management.OperatingSystemMXBean CPU =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** One operation kind. */
    enum Op { READ, WRITE, SEND }

    /** A load this process drives until a deadline ({@link System#nanoTime()}), counting completed operations. */
    interface Load {
        void runUntil(long deadline) throws Exception;

        long completed();
    }

    /** Operations per second over one measurement, and each process's CPU microseconds per operation. */
    private record Rate(double perSecond, double clientCpuMicros, double serverCpuMicros) {
    }

    private MessageRate() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: MessageRate OPS SIZES WINDOWS CONNECTIONS SECONDS OUT.json");
            System.exit(2);
        }
        List<Op> ops = Arrays.stream(args[0].split(",")).map(Op::valueOf).toList();
        if (PipelinedNio.FRAMED && ops.stream().anyMatch(op -> op != Op.READ)) {
            throw new IllegalArgumentException("bench.framed: the framed baseline answers READs only, not " + ops);
        }
        int[] sizes = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        int[] windows = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
        int[] connections = Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray();
        long nanos = (long) (Double.parseDouble(args[4]) * 1e9);
        String provider = System.getProperty("bench.provider", "soft");
        Driver driver = Driver.valueOf(System.getProperty("bench.driver", Driver.INVOKED.name()));
        List<String> rows = new ArrayList<>();
        try (ChildJvm server = new ChildJvm(MessageRatePeer.class)) {
            if (JIT_WARM_UP_NANOS > 0) {
                for (Op op : ops) {
                    rdma(server, provider, driver, op, sizes[0], JIT_WARM_UP_WINDOW, 1, JIT_WARM_UP_NANOS);
                    if (BASELINE) {
                        nio(server, PipelinedNio.request(op, sizes[0]), PipelinedNio.response(op, sizes[0]),
                                JIT_WARM_UP_WINDOW, 1, JIT_WARM_UP_NANOS);
                    }
                }
            }
            for (int n : connections) {
                for (Op op : ops) {
                    for (int size : sizes) {
                        for (int window : windows) {
                            String row = row(server, provider, driver, op, size, window, n, nanos);
                            System.out.println(row);
                            rows.add(row);
                        }
                    }
                }
            }
        }
        Files.writeString(Path.of(args[5]), "[\n  " + String.join(",\n  ", rows) + "\n]\n");
    }

    /** Measures one combination with RDMA, then with the baseline unless it is off: its JSON row. */
    private static String row(ChildJvm server, String provider, Driver driver, Op op, int size, int window, int n,
                              long nanos) throws Exception {
        Rate rdma = rdma(server, provider, driver, op, size, window, n, nanos);
        String row = String.format(Locale.ROOT, "{\"op\": \"%s\", \"size\": %d, \"window\": %d, \"connections\": %d, "
                        + "\"provider\": \"%s\", \"driver\": \"%s\", \"rdma_ops_per_s\": %.1f, "
                        + "\"rdma_client_cpu_us_per_op\": %.4f, \"rdma_server_cpu_us_per_op\": %.4f",
                op, size, window, n, provider, driver, rdma.perSecond(), rdma.clientCpuMicros(),
                rdma.serverCpuMicros());
        if (!BASELINE) {
            return row + "}";
        }
        int request = PipelinedNio.request(op, size);
        int response = PipelinedNio.response(op, size);
        Rate nio = nio(server, request, response, window, n, nanos);
        return row + String.format(Locale.ROOT, ", \"nio_request_bytes\": %d, \"nio_response_bytes\": %d, "
                        + "\"nio_ops_per_s\": %.1f, \"ratio\": %.4f, \"nio_client_cpu_us_per_op\": %.4f, "
                        + "\"nio_server_cpu_us_per_op\": %.4f%s}",
                request, response, nio.perSecond(), rdma.perSecond() / nio.perSecond(), nio.clientCpuMicros(),
                nio.serverCpuMicros(), PipelinedNio.FRAMED ? ", \"nio_framed\": true" : "");
    }

    /** One RDMA measurement: the server's runtime for it, then this side's; every operation must complete. */
    private static Rate rdma(ChildJvm server, String provider, Driver driver, Op op, int size, int window, int n,
                             long nanos) throws Exception {
        String[] at = server.ask("rdma " + op + " " + size + " " + window);
        InetSocketAddress address = ChildJvm.socketAddress(at[1]);
        RemoteBuffer remote = RemoteBuffer.decode(HexFormat.of().parseHex(at[2]));
        Rate rate;
        long posted;
        try (RdmaRuntime client = driver.configure(Pair.builder(provider).threadNamePrefix("msgrate-client"))
                .build()) {
            MemoryRegion local = client.register(ByteBuffer.allocateDirect(window * size), Access.LOCAL_WRITE);
            RegionSlice[] slots = Posts.slots(local, window, size); // shared: every stream posts slot i from i * size
            // A SEND stream's grant, which its receiver writes (SendCredits), zero until then.
            // Only on devices: a Send that finds no receive ends the stream there (iWARP) or waits out an RNR timer
            // (RoCE), while soft holds it until a receive is posted, which costs nothing.
            MemoryRegion grants = op == Op.SEND && !provider.equals("soft")
                    ? client.register(ByteBuffer.allocateDirect(n * SendCredits.GRANT_BYTES), Access.LOCAL_WRITE,
                    Access.REMOTE_WRITE) : null;
            List<CompletableFuture<RdmaConnection>> connecting = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ConnectBuilder connect = client.connector().connect(address).withReadLimits(window, window)
                        .withQueueDepths(window, 1);
                if (grants != null) {
                    connect = connect.withPrivateData(grants.remote()
                            .slice(i * SendCredits.GRANT_BYTES, SendCredits.GRANT_BYTES).encode());
                }
                connecting.add(connect.start());
            }
            RdmaLoad load = new RdmaLoad(client, driver);
            for (int i = 0; i < n; i++) {
                SendCredits.Sender sender = grants == null ? null : new SendCredits.Sender(grants.buffer(),
                        i * SendCredits.GRANT_BYTES, SendCredits.receives(window));
                load.streams.add(new Stream(connecting.get(i).get(TIMEOUT_NANOS, TimeUnit.NANOSECONDS), op, slots,
                        remote, size, sender, load.failure));
            }
            load.streams.forEach(s -> s.start(window));
            rate = measure(server, load, nanos);
            load.drain();
            posted = load.completed();
        }
        long received = Long.parseLong(server.ask("rdma-close")[1]);
        if (op == Op.SEND && received != posted) {
            throw new IllegalStateException("the server received " + received + " of " + posted + " Sends");
        }
        return rate;
    }

    /** One baseline measurement: the server's side for it, then this side's. */
    private static Rate nio(ChildJvm server, int request, int response, int window, int n, long nanos)
            throws Exception {
        InetSocketAddress address = ChildJvm.socketAddress(
                server.ask("nio " + request + " " + response + " " + window + " " + n)[1]);
        try (PipelinedNio.Client client = new PipelinedNio.Client(address, n, window, request, response)) {
            Rate rate = measure(server, client, nanos);
            client.drain(TIMEOUT_NANOS);
            return rate;
        }
    }

    /**
     * Runs {@code load} to warm it up (half of {@code nanos} or {@code -Dbench.warmup}), then measures it for
     * {@code nanos}. The measured time runs from after the server's first CPU reading to before its second: this
     * thread drives the load meanwhile (an application-driven client polls nothing while it waits for an answer,
     * which took over a second in the RDMA VM).
     */
    private static Rate measure(ChildJvm server, Load load, long nanos) throws Exception {
        long warmUp = WARM_UP_SECONDS == null ? nanos / 2 : (long) (Double.parseDouble(WARM_UP_SECONDS) * 1e9);
        load.runUntil(System.nanoTime() + warmUp);
        long serverStart = serverCpu(server);
        long[] start = sample(load);
        load.runUntil(start[0] + nanos);
        long[] end = sample(load);
        long serverEnd = serverCpu(server);
        double ops = end[1] - start[1];
        if (ops == 0) {
            throw new IllegalStateException("no operation completed in " + nanos / 1e9 + " s");
        }
        return new Rate(ops * 1e9 / (end[0] - start[0]), (end[2] - start[2]) / 1e3 / ops,
                (serverEnd - serverStart) / 1e3 / ops);
    }

    /** The time, the operations completed and this process's CPU time (nanoseconds). */
    private static long[] sample(Load load) {
        return new long[] {System.nanoTime(), load.completed(), CPU.getProcessCpuTime()};
    }

    /** The server process's CPU time (nanoseconds). */
    private static long serverCpu(ChildJvm server) {
        return Long.parseLong(server.ask("cpu")[1]);
    }

    /** The connections' streams of one RDMA measurement, driven by this thread or by the runtime's poller. */
    private static final class RdmaLoad implements Load {
        final List<Stream> streams = new ArrayList<>();
        final AtomicReference<RdmaException> failure = new AtomicReference<>();
        private final RdmaRuntime client;
        private final Driver driver;

        RdmaLoad(RdmaRuntime client, Driver driver) {
            this.client = client;
            this.driver = driver;
        }

        /** Drives the load until {@code deadline}; a failed operation ends it with its error at once. */
        @Override
        public void runUntil(long deadline) throws InterruptedException {
            while (System.nanoTime() - deadline < 0) {
                if (failure.get() != null) {
                    throw failure.get();
                }
                if (driver == Driver.INVOKED) {
                    client.poll();
                    resume();
                } else {
                    // A grant completes nothing here, so while Sends wait for one this thread looks for it; a Send
                    // the poller parks meanwhile unparks this thread (Stream.park).
                    LockSupport.parkNanos(resume() ? PARKED_CHECK_NANOS
                            : Math.min(deadline - System.nanoTime(), 10_000_000));
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            }
        }

        /** Posts the Sends that waited for a grant and have one now; true while some still wait. */
        private boolean resume() {
            boolean waiting = false;
            for (int i = 0; i < streams.size(); i++) {
                waiting |= streams.get(i).resume();
            }
            return waiting;
        }

        @Override
        public long completed() {
            long sum = 0;
            for (Stream s : streams) {
                sum += s.done.sum();
            }
            return sum;
        }

        /**
         * Stops re-posting, waits until every operation in flight completed (throws the first failure) and no grant
         * is on its way, then disconnects every connection.
         */
        void drain() throws InterruptedException {
            streams.forEach(s -> s.running = false);
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (streams.stream().anyMatch(s -> s.outstanding.get() > 0)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("operations still in flight "
                            + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NANOS) + " s after the measurement");
                }
                runUntil(System.nanoTime() + 1_000_000);
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            // Then, with grants, until the server's last grant has landed (SendCredits.Sender.quiet): one that reached
            // a closed socket would reset the connection and could drop Sends the server had not read yet.
            while (!streams.stream().allMatch(Stream::quiet)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the server's last grant had not landed "
                            + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NANOS) + " s after the measurement");
                }
                runUntil(System.nanoTime() + 1_000_000);
            }
            // Then a graceful disconnect, polled (an application-driven runtime answers nothing while not polled).
            List<CompletableFuture<Void>> ends = streams.stream().map(s -> s.connection.disconnect()).toList();
            while (!ends.stream().allMatch(CompletableFuture::isDone)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("connections still disconnecting "
                            + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NANOS) + " s after the measurement");
                }
                runUntil(System.nanoTime() + 1_000_000);
            }
        }
    }

    /**
     * One connection's window of operations, each re-posted from its completion callback while running; a SEND
     * only while its receiver granted one ({@link SendCredits}), otherwise parked until {@link #resume} finds a grant.
     */
    private static final class Stream implements CompletionCallback {
        final LongAdder done = new LongAdder();
        final AtomicInteger outstanding = new AtomicInteger();
        volatile boolean running;
        private final RdmaConnection connection;
        private final Op op;
        /** Slot {@code i}'s local side, built once: a slice per post would allocate one per operation. */
        private final RegionSlice[] slots;
        private final RemoteBuffer remote;
        private final int size;
        /** A SEND stream's credits; null for READ and WRITE. */
        private final SendCredits.Sender sender;
        /** Slots whose Send waits for a grant (at most the window: slots below 128 box without allocating). */
        private final Queue<Long> parked;
        private final AtomicReference<RdmaException> failure;
        /** The thread that drives the load and re-posts parked Sends (this class's creator). */
        private final Thread driver = Thread.currentThread();

        Stream(RdmaConnection connection, Op op, RegionSlice[] slots, RemoteBuffer remote, int size,
               SendCredits.Sender sender, AtomicReference<RdmaException> failure) {
            this.connection = connection;
            this.op = op;
            this.slots = slots;
            this.remote = remote;
            this.size = size;
            this.sender = sender;
            this.parked = sender == null ? null : new ArrayBlockingQueue<>(slots.length);
            this.failure = failure;
        }

        void start(int window) {
            running = true;
            outstanding.set(window);
            for (int slot = 0; slot < window; slot++) {
                post(slot);
            }
        }

        /** Posts slot {@code slot}; a refusal fails the load as a failed operation does (it is not in flight). */
        private void post(long slot) {
            if (sender != null && !sender.tryTake()) {
                park(slot);
                return;
            }
            RegionSlice local = slots[(int) slot];
            long offset = slot * size;
            Status status = switch (op) {
                case READ -> connection.read(local, remote, offset, OperationFlags.NONE, this, slot);
                case WRITE -> connection.write(local, remote, offset, OperationFlags.NONE, this, slot);
                case SEND -> connection.send(local, OperationFlags.NONE, this, slot);
            };
            if (status != Status.SUCCESS) {
                failure.compareAndSet(null, Posts.refusal(status, op.name()));
                outstanding.decrementAndGet();
            }
        }

        private void park(long slot) {
            if (running) {
                parked.add(slot);
                if (Thread.currentThread() != driver) {
                    LockSupport.unpark(driver); // it looks for grants while Sends are parked
                }
            } else {
                outstanding.decrementAndGet();
            }
        }

        /**
         * Posts the parked Sends that have a grant now (once stopped, drops them: they never left); true while some
         * still wait.
         */
        boolean resume() {
            if (parked == null || parked.isEmpty()) {
                return false;
            }
            Long slot;
            if (!running) {
                while ((slot = parked.poll()) != null) {
                    outstanding.decrementAndGet();
                }
                return false;
            }
            while (sender.hasCredit() && (slot = parked.poll()) != null) {
                post(slot);
            }
            return !parked.isEmpty();
        }

        /** Whether no grant is on its way any more (always, without grants). */
        boolean quiet() {
            return sender == null || sender.quiet();
        }

        @Override
        public void completed(long slot, int bytes) {
            done.increment();
            if (running) {
                post(slot);
            } else {
                outstanding.decrementAndGet();
            }
        }

        @Override
        public void failed(long slot, RdmaException error) {
            failure.compareAndSet(null, error);
            outstanding.decrementAndGet();
        }
    }
}
