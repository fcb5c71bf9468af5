package dev.rdmafutures.jmh;

import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One RdmaFutures end of the VM set-up rate comparison (issue 16) with librdmacm's {@code cmtime}
 * ({@code testcontainers-rxe/vm/setup-rate-vm.sh} runs it): a listener that {@code cmtime -s} connects to, or a
 * connector that connects to a {@code cmtime} server, on one device, in rounds that the script starts.
 *
 * <p>Every connection is made as {@code cmtime} makes its own, so that only the other end differs: queue pairs of one
 * work request and one segment each way, read limits of 1 both ways, no private data. The listener accepts every
 * request, and when the peer disconnects it closes its end, as {@code cmtime}'s server does. The connector starts all
 * of a round's connects at once ({@code cmtime} resolves, creates its queue pairs and then has all its connects in
 * flight), waits until all are established, then disconnects them all and waits for that.
 *
 * <pre>
 *   SetupRatePeer listen  PROVIDER ADDRESS PORT DEADLINE_SECONDS OUT.json
 *   SetupRatePeer connect PROVIDER ADDRESS PORT DEADLINE_SECONDS OUT.json
 * </pre>
 * It prints {@code listening ADDRESS:PORT} or {@code connector PROVIDER} once ready, then reads commands on standard
 * input: {@code round N} answers {@code ready N} at once and {@code done N} once the round's N connections were
 * established and disconnected; {@code end} writes every round to OUT.json and exits 0. Each round must end within
 * DEADLINE_SECONDS. Anything else (a failed accept or connect, a connection the round did not expect, a peer that
 * never disconnects, a deadline passed) prints {@code error ...} and exits 1: a measurement with a failed connection
 * is no measurement. {@code verbs} uses the device named by {@code -Dbench.device}.
 *
 * <p>Each round's JSON also says where its time went, for the profile of a missed target (issue 16): {@code stages}
 * holds per-connection medians from {@link System#nanoTime()} stamps (a listener: the gap between successive requests
 * reaching the handler, which is the poller's serial cost per connection, and request to established; a connector:
 * start to established), and {@code jvm} what the JVM did during the round: JIT compilation milliseconds, classes
 * loaded, collections and their milliseconds, and the CPU milliseconds of the runtime's threads ({@code setup-rate-*},
 * the poller) and of the whole process, so that busy time can be told from waiting.
 */
public final class SetupRatePeer {
    /** The queue depth and the segments per request cmtime creates its queue pairs with. */
    private static final int CMTIME_QP_DEPTH = 1;
    /** cmtime's initiator depth and responder resources. */
    private static final int CMTIME_READ_LIMIT = 1;
    /** The listener's backlog: a round's connects are all in flight at once (Linux caps it at somaxconn). */
    private static final int BACKLOG = 4096;

    private SetupRatePeer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6 || !(args[0].equals("listen") || args[0].equals("connect"))) {
            System.err.println("usage: SetupRatePeer listen|connect PROVIDER ADDRESS PORT DEADLINE_SECONDS OUT.json");
            System.exit(2);
        }
        String provider = args[1];
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3]));
        Duration deadline = Duration.ofSeconds(Long.parseLong(args[4]));
        Path out = Path.of(args[5]);
        List<String> rounds = new ArrayList<>();
        try (RdmaRuntime runtime = Pair.builder(provider).threadNamePrefix("setup-rate").listenBacklog(BACKLOG)
                .connectTimeout(deadline).handshakeTimeout(deadline).build()) {
            Side side = args[0].equals("listen") ? new Listening(runtime, address, deadline)
                    : new Connecting(runtime, address, deadline);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command; (command = in.readLine()) != null; ) {
                if (command.equals("end")) {
                    Files.writeString(out, String.format(Locale.ROOT,
                            "{\"role\": \"%s\", \"provider\": \"%s\", \"device\": \"%s\", \"rounds\": [%s]}%n",
                            args[0], provider, System.getProperty("bench.device", ""), String.join(", ", rounds)));
                    return;
                }
                if (!command.startsWith("round ")) {
                    fail("unknown command: " + command);
                }
                int n = Integer.parseInt(command.substring("round ".length()));
                JvmSnapshot before = JvmSnapshot.take();
                RoundEvent event = new RoundEvent();
                event.index = rounds.size();
                event.connections = n;
                event.begin();
                String round = side.round(n);
                event.commit();
                rounds.add(round.substring(0, round.length() - 1) + ", \"jvm\": " + before.deltaJson() + "}");
                System.out.println("done " + n);
            }
            fail("standard input ended before 'end'");
        } catch (Exception e) {
            fail(e.toString());
        }
    }

    private static void fail(String why) {
        System.out.println("error " + why);
        System.out.flush();
        System.exit(1);
    }

    /** One end: runs a round of {@code n} connections and returns its JSON object. */
    private interface Side {
        String round(int n) throws Exception;
    }

    /** Accepts every request; counts and times the round's accepts and the peer's disconnects. */
    private static final class Listening implements Side {
        private final Duration deadline;
        private final AtomicInteger requests = new AtomicInteger();
        private final AtomicInteger established = new AtomicInteger();
        private final AtomicInteger disconnected = new AtomicInteger();
        private final AtomicLong firstRequest = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong lastEstablished = new AtomicLong(Long.MIN_VALUE);
        private final AtomicLong firstDisconnect = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong lastDisconnect = new AtomicLong(Long.MIN_VALUE);
        private final AtomicReference<String> failure = new AtomicReference<>();
        /** Per request of the round, by arrival order: when the handler saw it, and when its accept completed. */
        private final AtomicLongArray requestAt = new AtomicLongArray(MAX_STAMPS);
        private final AtomicLongArray establishedAt = new AtomicLongArray(MAX_STAMPS);

        Listening(RdmaRuntime runtime, InetSocketAddress address, Duration deadline) {
            this.deadline = deadline;
            RdmaListener listener = runtime.listen(address);
            listener.onRequest(request -> {
                long now = System.nanoTime();
                firstRequest.accumulateAndGet(now, Math::min);
                int index = requests.getAndIncrement();
                if (index < MAX_STAMPS) {
                    requestAt.set(index, now);
                }
                request.withQueueDepths(CMTIME_QP_DEPTH, CMTIME_QP_DEPTH).withMaxSge(CMTIME_QP_DEPTH, CMTIME_QP_DEPTH)
                        .accept().whenComplete((connection, error) -> {
                            if (error != null) {
                                failure.compareAndSet(null, "an accept failed: " + error);
                                return;
                            }
                            long at = System.nanoTime();
                            if (index < MAX_STAMPS) {
                                establishedAt.set(index, at);
                            }
                            lastEstablished.accumulateAndGet(at, Math::max);
                            established.incrementAndGet();
                            connection.disconnected().whenComplete((reason, e) -> peerEnded(connection, reason));
                        });
            });
            System.out.println("listening " + listener.localAddress().getAddress().getHostAddress() + ":"
                    + listener.localAddress().getPort());
        }

        private void peerEnded(RdmaConnection connection, DisconnectReason reason) {
            if (reason != DisconnectReason.PEER_DISCONNECTED) {
                failure.compareAndSet(null, "a connection ended " + reason + ", not by the peer's disconnect");
            }
            connection.close();
            firstDisconnect.accumulateAndGet(System.nanoTime(), Math::min);
            lastDisconnect.accumulateAndGet(System.nanoTime(), Math::max);
            disconnected.incrementAndGet();
        }

        @Override
        public String round(int n) throws Exception {
            requests.set(0);
            established.set(0);
            disconnected.set(0);
            firstRequest.set(Long.MAX_VALUE);
            lastEstablished.set(Long.MIN_VALUE);
            firstDisconnect.set(Long.MAX_VALUE);
            lastDisconnect.set(Long.MIN_VALUE);
            for (int i = 0; i < MAX_STAMPS; i++) {
                requestAt.set(i, 0);
                establishedAt.set(i, 0);
            }
            System.out.println("ready " + n);
            long end = System.nanoTime() + deadline.toNanos();
            while (disconnected.get() < n || established.get() < n) {
                if (failure.get() != null) {
                    throw new IllegalStateException(failure.get());
                }
                if (System.nanoTime() - end > 0) {
                    throw new TimeoutException("after " + deadline.toSeconds() + " s: " + requests.get()
                            + " requests, " + established.get() + " established, " + disconnected.get()
                            + " disconnected by the peer, of " + n);
                }
                Thread.sleep(1);
            }
            // Requests past the round's count would be another round's: none may come.
            Thread.sleep(100);
            if (requests.get() != n || established.get() != n || disconnected.get() != n || failure.get() != null) {
                throw new IllegalStateException("expected " + n + " connections, saw " + requests.get() + " requests, "
                        + established.get() + " established, " + disconnected.get() + " disconnected"
                        + (failure.get() == null ? "" : ": " + failure.get()));
            }
            double accept = (lastEstablished.get() - firstRequest.get()) / 1e9;
            double disconnect = (lastDisconnect.get() - firstDisconnect.get()) / 1e9;
            int stamped = Math.min(n, MAX_STAMPS);
            long[] gaps = new long[Math.max(0, stamped - 1)];
            long[] toEstablished = new long[stamped];
            for (int i = 0; i < stamped; i++) {
                toEstablished[i] = establishedAt.get(i) - requestAt.get(i);
                if (i > 0) {
                    gaps[i - 1] = requestAt.get(i) - requestAt.get(i - 1);
                }
            }
            return String.format(Locale.ROOT, "{\"connections\": %d, \"acceptSeconds\": %.6f, "
                    + "\"acceptsPerSecond\": %.1f, \"disconnectSeconds\": %.6f, \"stages\": {\"requestGapMs\": %s, "
                    + "\"requestToEstablishedMs\": %s}}", n, accept, n / accept, disconnect, spread(gaps),
                    spread(toEstablished));
        }
    }

    /** Starts a round's connects at once, waits for all, then disconnects them all. */
    private static final class Connecting implements Side {
        private final RdmaRuntime runtime;
        private final InetSocketAddress server;
        private final Duration deadline;

        Connecting(RdmaRuntime runtime, InetSocketAddress server, Duration deadline) {
            this.runtime = runtime;
            this.server = server;
            this.deadline = deadline;
            System.out.println("connector " + runtime);
        }

        @Override
        public String round(int n) throws Exception {
            System.out.println("ready " + n);
            long end = System.nanoTime() + deadline.toNanos();
            long start = System.nanoTime();
            List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>(n);
            long[] startedAt = new long[n];
            AtomicLongArray establishedAt = new AtomicLongArray(n);
            for (int i = 0; i < n; i++) {
                int index = i;
                startedAt[i] = System.nanoTime();
                connects.add(runtime.connector().connect(server).withQueueDepths(CMTIME_QP_DEPTH, CMTIME_QP_DEPTH)
                        .withMaxSge(CMTIME_QP_DEPTH, CMTIME_QP_DEPTH)
                        .withReadLimits(CMTIME_READ_LIMIT, CMTIME_READ_LIMIT).start()
                        .whenComplete((c, e) -> establishedAt.set(index, System.nanoTime())));
            }
            CompletableFuture.allOf(connects.toArray(CompletableFuture[]::new))
                    .get(end - System.nanoTime(), TimeUnit.NANOSECONDS);
            long connected = System.nanoTime();
            List<CompletableFuture<Void>> disconnects = new ArrayList<>(n);
            for (CompletableFuture<RdmaConnection> c : connects) {
                disconnects.add(c.join().disconnect());
            }
            CompletableFuture.allOf(disconnects.toArray(CompletableFuture[]::new))
                    .get(end - System.nanoTime(), TimeUnit.NANOSECONDS);
            double connect = (connected - start) / 1e9;
            double disconnect = (System.nanoTime() - connected) / 1e9;
            long[] toEstablished = new long[n];
            long[] established = new long[n];
            for (int i = 0; i < n; i++) {
                toEstablished[i] = establishedAt.get(i) - startedAt[i];
                established[i] = establishedAt.get(i);
            }
            Arrays.sort(established);
            long[] gaps = new long[Math.max(0, n - 1)];
            for (int i = 1; i < n; i++) {
                gaps[i - 1] = established[i] - established[i - 1];
            }
            return String.format(Locale.ROOT, "{\"connections\": %d, \"connectSeconds\": %.6f, "
                    + "\"connectsPerSecond\": %.1f, \"disconnectSeconds\": %.6f, \"stages\": {"
                    + "\"startLoopMs\": %.3f, \"startToEstablishedMs\": %s, \"establishedGapMs\": %s}}", n, connect,
                    n / connect, disconnect, (startedAt[n - 1] - startedAt[0]) / 1e6, spread(toEstablished),
                    spread(gaps));
        }
    }

    /** Per-connection stamps a listener keeps per round (a round has at most 48 connections: see the script). */
    private static final int MAX_STAMPS = 4096;

    /** {"median": .., "p90": .., "max": ..} of nanosecond spans, in milliseconds; nulls when there are none. */
    private static String spread(long[] nanos) {
        if (nanos.length == 0) {
            return "{\"median\": null, \"p90\": null, \"max\": null}";
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "{\"median\": %.3f, \"p90\": %.3f, \"max\": %.3f}",
                sorted[(sorted.length - 1) / 2] / 1e6, sorted[(int) Math.ceil(0.9 * sorted.length) - 1] / 1e6,
                sorted[sorted.length - 1] / 1e6);
    }

    /** A round in a flight recording (SETUP_RATE_JFR=1), so that samples can be told apart by round. */
    @jdk.jfr.Name("dev.rdmafutures.jmh.SetupRateRound")
    @jdk.jfr.Label("Set-up Rate Round")
    static final class RoundEvent extends jdk.jfr.Event {
        @jdk.jfr.Label("Index")
        int index;
        @jdk.jfr.Label("Connections")
        int connections;
    }

    /** What the JVM had done by one moment: JIT, class loading, GC and CPU time (of the runtime's threads too). */
    private record JvmSnapshot(long compileMs, long classesLoaded, long gcCount, long gcMs, long runtimeCpuNanos,
                               long processCpuNanos, long wallNanos) {
        static JvmSnapshot take() {
            long gcCount = 0;
            long gcMs = 0;
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcCount += Math.max(0, gc.getCollectionCount());
                gcMs += Math.max(0, gc.getCollectionTime());
            }
            var compilation = ManagementFactory.getCompilationMXBean();
            long processCpu = ManagementFactory.getOperatingSystemMXBean()
                    instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
            return new JvmSnapshot(compilation == null ? -1 : compilation.getTotalCompilationTime(),
                    ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount(), gcCount, gcMs,
                    runtimeThreadsCpuNanos(), processCpu, System.nanoTime());
        }

        /** CPU time of the threads named setup-rate-* (the runtime's poller), summed. */
        private static long runtimeThreadsCpuNanos() {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long sum = 0;
            for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
                if (info != null && info.getThreadName().startsWith("setup-rate")) {
                    sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
                }
            }
            return sum;
        }

        String deltaJson() {
            JvmSnapshot now = take();
            return String.format(Locale.ROOT, "{\"wallMs\": %.1f, \"compileMs\": %d, \"classesLoaded\": %d, "
                    + "\"gcCount\": %d, \"gcMs\": %d, \"runtimeThreadsCpuMs\": %.1f, \"processCpuMs\": %.1f}",
                    (now.wallNanos - wallNanos) / 1e6, now.compileMs - compileMs, now.classesLoaded - classesLoaded,
                    now.gcCount - gcCount, now.gcMs - gcMs, (now.runtimeCpuNanos - runtimeCpuNanos) / 1e6,
                    (now.processCpuNanos - processCpuNanos) / 1e6);
        }
    }
}
