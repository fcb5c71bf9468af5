package dev.rdmafutures.testcontainers;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.FaultRows;
import dev.rdmafutures.conformance.LinkCut;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The link between two VMs is cut without a reset (issue 15, item 2), run by {@code vm/pair-faults.sh} in
 * {@code rdma-vm pair}: host B serves a readable region on soft and on verbs (rxe0); host A keeps 64 KiB READs
 * outstanding to it and cuts its own side of the link silently (netem drops every packet it sends, an ingress filter
 * every packet it receives: no RST, no DREQ, the port stays up). Per provider, a cut shorter than the deadline must
 * lose nothing, and a cut that outlasts it must end every READ with a typed status: the oldest IO_TIMEOUT (soft's
 * liveness deadline; verbs' retry budget, spent as RETRY_EXC_ERR), the others CANCELED, the connection
 * CONNECTION_RESET, detected within the deadline; after the link is back the runtime serves a new connection. Each
 * case prints a {@code FAULT-ROW} line; any broken expectation ends A with exit code 1.
 *
 * <p>Usage: {@code LinkCutPair serve|cut} with {@code MY_IP}, {@code PEER_IP} and {@code SYNC} (a directory both
 * hosts share) in the environment.
 */
public final class LinkCutPair {
    private static final int SIZE = 64 * 1024;
    private static final int REGION = 16 * SIZE;
    /** READs kept outstanding. */
    private static final int WINDOW = 16;
    private static final int SOFT_PORT = 7300;
    private static final int VERBS_PORT = 7301;
    private static final String NETDEV = "eth0";
    /** The short deadline the cuts must reach, and the longer one the short cut must stay under. */
    private static final Duration SHORT_DEADLINE = Duration.ofSeconds(2);
    private static final Duration LONG_DEADLINE = Duration.ofSeconds(4);
    private static final Duration SHORT_CUT = Duration.ofSeconds(1);
    /** What TCG emulation may add to a deadline (a poller late by a few scheduling rounds). */
    private static final Duration SLACK = Duration.ofMillis(1500);
    /** Every wait is bounded by this: nothing may hang. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    private LinkCutPair() {
    }

    public static void main(String[] args) throws Exception {
        Path sync = Path.of(System.getenv("SYNC"));
        String myIp = System.getenv("MY_IP");
        String peerIp = System.getenv("PEER_IP");
        switch (args.length == 1 ? args[0] : "") {
            case "serve" -> serve(sync, myIp);
            case "cut" -> {
                List<String> broken = new ArrayList<>();
                try {
                    cut(sync, peerIp, broken);
                } finally {
                    Files.writeString(sync.resolve("A-done"), "done");
                    broken.forEach(b -> System.out.println("BROKEN: " + b)); // also those before an exception
                }
                System.exit(broken.isEmpty() ? 0 : 1);
            }
            default -> {
                System.err.println("usage: LinkCutPair serve|cut (env MY_IP, PEER_IP, SYNC)");
                System.exit(2);
            }
        }
    }

    // --- host B ----------------------------------------------------------------------------------------------

    private static void serve(Path sync, String myIp) throws Exception {
        try (RdmaRuntime soft = RdmaRuntime.builder().provider("soft").build();
             RdmaRuntime verbs = verbsBuilder().build()) {
            StringBuilder ready = new StringBuilder();
            for (RdmaRuntime runtime : List.of(soft, verbs)) {
                MemoryRegion region = runtime.register(pattern(), Access.REMOTE_READ);
                int port = runtime == soft ? SOFT_PORT : VERBS_PORT;
                RdmaListener listener = runtime.listen(new InetSocketAddress(myIp, port));
                listener.onRequest(request -> request.withQueueDepths(WINDOW, 4)
                        .withReadLimits(WINDOW, WINDOW).accept());
                ready.append(runtime == soft ? "soft" : "verbs").append(' ').append(region.remote().address())
                        .append(' ').append(region.token()).append('\n');
            }
            Files.writeString(sync.resolve("B-ready.tmp"), ready);
            Files.move(sync.resolve("B-ready.tmp"), sync.resolve("B-ready"));
            System.out.println("B serving soft on " + SOFT_PORT + ", verbs (rxe0) on " + VERBS_PORT);
            long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!Files.exists(sync.resolve("A-done")) && System.nanoTime() < until) {
                Thread.sleep(200);
            }
        }
    }

    private static RdmaRuntime.Builder verbsBuilder() {
        return RdmaRuntime.builder().provider("verbs").providerOption("verbs.device", "rxe0")
                .connectTimeout(Duration.ofSeconds(10)).handshakeTimeout(Duration.ofSeconds(5))
                .disconnectTimeout(Duration.ofSeconds(2));
    }

    /** The region B serves: byte {@code i} is {@link #expected}{@code (i)}. */
    private static ByteBuffer pattern() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(REGION);
        for (int i = 0; i < REGION; i++) {
            buffer.put(i, expected(i));
        }
        return buffer;
    }

    private static byte expected(int offset) {
        return (byte) (offset * 31 + offset / 4099 + 7);
    }

    // --- host A ----------------------------------------------------------------------------------------------

    private static void cut(Path sync, String peerIp, List<String> broken) throws Exception {
        Path ready = sync.resolve("B-ready");
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.exists(ready) && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        Map<String, RemoteBuffer> regions = new HashMap<>();
        for (String line : Files.readAllLines(ready, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            regions.put(f[0], new RemoteBuffer(Long.parseLong(f[1]), REGION, Integer.parseInt(f[2])));
        }
        InetSocketAddress soft = new InetSocketAddress(peerIp, SOFT_PORT);
        InetSocketAddress verbs = new InetSocketAddress(peerIp, VERBS_PORT);
        RemoteBuffer softRegion = regions.get("soft");
        RemoteBuffer verbsRegion = regions.get("verbs");
        new Case("soft (pair)", RdmaRuntime.builder().provider("soft"), soft, softRegion, broken).shortCut();
        new Case("soft (pair)", RdmaRuntime.builder().provider("soft"), soft, softRegion, broken).lastingCut();
        new Case("verbs (rxe0, pair)", verbsBuilder(), verbs, verbsRegion, broken).shortCut();
        new Case("verbs (rxe0, pair)", verbsBuilder(), verbs, verbsRegion, broken).lastingCut();
    }

    /** One provider's READ traffic to B through one cut. */
    private static final class Case {
        private final String provider;
        private final RdmaRuntime.Builder builder;
        private final InetSocketAddress peer;
        private final RemoteBuffer remote;
        private final List<String> broken;
        private final Queue<CompletableFuture<Completion>> posted = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong verified = new AtomicLong();
        private final AtomicLong mismatched = new AtomicLong();
        private final AtomicLong completed = new AtomicLong();
        /** When the first READ failed, in System.nanoTime(); 0 until then. */
        private final AtomicLong firstFailure = new AtomicLong();
        private final Map<Status, Integer> failures = new EnumMap<>(Status.class);
        private final List<String> untyped = new ArrayList<>();
        private volatile Status firstStatus;

        Case(String provider, RdmaRuntime.Builder builder, InetSocketAddress peer, RemoteBuffer remote,
             List<String> broken) {
            this.provider = provider;
            this.builder = builder;
            this.peer = peer;
            this.remote = remote;
            this.broken = broken;
        }

        /** A cut of {@link #SHORT_CUT} under a deadline of {@link #LONG_DEADLINE}: every READ completes verified. */
        void shortCut() throws Exception {
            try (RdmaRuntime runtime = builder.livenessTimeout(LONG_DEADLINE).build()) {
                RdmaConnection connection = connect(runtime);
                MemoryRegion sink = runtime.register(ByteBuffer.allocateDirect(WINDOW * SIZE), Access.LOCAL_WRITE);
                startTraffic(connection, sink);
                awaitCompletions(3 * WINDOW);
                long inFlight = pending();
                long beforeCut = completed.get();
                // The cut holds at least SHORT_CUT (from down's return to up's start) and at most from down's start
                // to up's return; the row reports that upper bound, and a cut that ran as long as the deadline
                // would test nothing this case claims. Its tc processes start before it: a process start costs the
                // loaded guest about a second, which would count as cut.
                long cutBegun;
                long restoredAt;
                try (LinkCut cut = LinkCut.prepare(NETDEV)) {
                    cutBegun = System.nanoTime();
                    cut.cut();
                    try {
                        Thread.sleep(SHORT_CUT.toMillis());
                    } finally {
                        cut.restore();
                    }
                    restoredAt = System.nanoTime();
                }
                Duration cutAtMost = Duration.ofNanos(restoredAt - cutBegun);
                check(cutAtMost.compareTo(LONG_DEADLINE) < 0, "the harness held the short cut up to "
                        + cutAtMost.toMillis() + " ms, not under the " + LONG_DEADLINE.toMillis() + " ms deadline");
                awaitCompletions(completed.get() + 3 * WINDOW);
                Duration resumed = Duration.ofNanos(System.nanoTime() - restoredAt);
                stop.set(true);
                settle();
                check(failures.isEmpty(), "a short cut failed READs: " + failures);
                check(mismatched.get() == 0, mismatched + " READs brought wrong bytes");
                check(completed.get() >= beforeCut + 3 * WINDOW, "traffic did not resume after the cut");
                check(connection.isConnected(), "the connection ended");
                row("link cut " + SHORT_CUT.toMillis() + " ms (at most " + cutAtMost.toMillis()
                        + " ms with applying it) without a reset, restored (64 KiB READs, " + WINDOW + " outstanding)", inFlight, "none failed; " + completed + " completed",
                        "not a failure: under the deadline (" + LONG_DEADLINE.toMillis() + " ms); "
                        + 3 * WINDOW + " more READs done " + resumed.toMillis() + " ms after restore",
                        "yes, the same connection", verified + " READs' 64 KiB verified");
            }
        }

        /**
         * A cut that outlasts a deadline of {@link #SHORT_DEADLINE}: the oldest READ IO_TIMEOUT, the rest CANCELED,
         * the connection CONNECTION_RESET; after the link is back, a new connection reads verified bytes.
         */
        void lastingCut() throws Exception {
            try (RdmaRuntime runtime = builder.livenessTimeout(SHORT_DEADLINE).build()) {
                CompletableFuture<DisconnectReason> reported = new CompletableFuture<>();
                AtomicInteger reports = new AtomicInteger();
                RdmaConnection connection = await(runtime.connector().connect(peer).withQueueDepths(WINDOW, 4)
                        .withReadLimits(WINDOW, WINDOW).onDisconnect(r -> {
                            reports.incrementAndGet();
                            reported.complete(r);
                        }).start());
                MemoryRegion sink = runtime.register(ByteBuffer.allocateDirect(WINDOW * SIZE), Access.LOCAL_WRITE);
                startTraffic(connection, sink);
                awaitCompletions(3 * WINDOW);
                long inFlight;
                long cutAt;
                Duration detected;
                Duration settled;
                DisconnectReason reason;
                linkDown();
                try {
                    cutAt = System.nanoTime();
                    inFlight = pending();
                    settle();
                    settled = Duration.ofNanos(System.nanoTime() - cutAt);
                    detected = Duration.ofNanos(firstFailure.get() - cutAt);
                    reason = reported.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } finally {
                    linkUp();
                }
                check(firstStatus == Status.IO_TIMEOUT, "the oldest READ failed " + firstStatus + ", not IO_TIMEOUT");
                check(failures.getOrDefault(Status.IO_TIMEOUT, 0) == 1, "IO_TIMEOUT once: " + failures);
                check(failures.keySet().stream().allMatch(s -> s == Status.IO_TIMEOUT || s == Status.CANCELED),
                        "the others CANCELED: " + failures);
                check(reason == DisconnectReason.CONNECTION_RESET, "the connection ended " + reason);
                check(await(connection.disconnected()) == reason, "disconnected() differs from the report");
                check(mismatched.get() == 0, mismatched + " READs brought wrong bytes");
                check(detected.compareTo(SHORT_DEADLINE.dividedBy(2)) >= 0, "detected " + detected.toMillis()
                        + " ms after the cut, before half the deadline");
                check(detected.compareTo(SHORT_DEADLINE.multipliedBy(5).dividedBy(4).plus(SLACK)) <= 0, "detected "
                        + detected.toMillis() + " ms after the cut, later than the deadline allows");

                // The runtime goes on serving: a new connection over the restored link reads known bytes.
                String serving = "no";
                String newRead = "none";
                try {
                    RdmaConnection fresh = connect(runtime);
                    int offset = 5 * SIZE;
                    check(await(fresh.read(sink.slice(0, SIZE), remote, offset, OperationFlags.NONE)).bytes() == SIZE,
                            "short read");
                    boolean same = matches(sink.buffer(), 0, offset);
                    check(same, "the new connection's READ brought wrong bytes");
                    check(reports.get() == 1, "disconnect reports: " + reports);
                    serving = "yes: new connection after restore; " + reports + " disconnect report";
                    newRead = "64 KiB read verified on it";
                    fresh.close();
                } catch (Exception e) {
                    check(false, "no new connection after the link came back: " + e);
                }
                row("link cut without a reset, lasting (64 KiB READs, " + WINDOW + " outstanding)", inFlight,
                        failures + ", " + completed + " completed before; connection " + reason,
                        detected.toMillis() + " ms after the cut, all settled at " + settled.toMillis()
                        + " ms (deadline " + SHORT_DEADLINE.toMillis() + " ms)", serving,
                        verified + " READs' 64 KiB verified; " + newRead);
            }
        }

        private RdmaConnection connect(RdmaRuntime runtime) throws Exception {
            return await(runtime.connector().connect(peer).withQueueDepths(WINDOW, 4)
                    .withReadLimits(WINDOW, WINDOW).start());
        }

        /** {@link #WINDOW} READs, each posting the next into its slot when it completes, until {@link #stop}. */
        private void startTraffic(RdmaConnection connection, MemoryRegion sink) {
            for (int slot = 0; slot < WINDOW; slot++) {
                post(connection, sink, slot, slot);
            }
        }

        private void post(RdmaConnection connection, MemoryRegion sink, int slot, long sequence) {
            int offset = (int) (sequence % (REGION / SIZE)) * SIZE;
            CompletableFuture<Completion> read = connection.read(sink.slice(slot * SIZE, SIZE), remote, offset,
                    OperationFlags.NONE);
            posted.add(read);
            read.whenComplete((done, error) -> {
                if (error == null) {
                    if (matches(sink.buffer(), slot * SIZE, offset)) {
                        verified.incrementAndGet();
                    } else {
                        mismatched.incrementAndGet();
                    }
                    completed.incrementAndGet();
                    if (!stop.get()) {
                        post(connection, sink, slot, sequence + WINDOW); // before this one leaves: never empty
                    }
                } else {
                    Throwable cause = error instanceof CompletionException c ? c.getCause() : error;
                    synchronized (failures) {
                        if (cause instanceof RdmaException e) {
                            if (firstFailure.compareAndSet(0, System.nanoTime())) {
                                firstStatus = e.status();
                            }
                            failures.merge(e.status(), 1, Integer::sum);
                        } else {
                            firstFailure.compareAndSet(0, System.nanoTime());
                            untyped.add(String.valueOf(cause));
                        }
                    }
                }
                posted.remove(read);
            });
        }

        private long pending() {
            return posted.stream().filter(f -> !f.isDone()).count();
        }

        private void awaitCompletions(long count) throws Exception {
            long until = System.nanoTime() + WAIT.toNanos();
            while (completed.get() < count && firstFailure.get() == 0 && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            if (completed.get() < count) {
                throw new IllegalStateException(provider + ": " + completed + " of " + count + " READs completed;"
                        + " failures " + failures);
            }
        }

        /** Waits until no READ is outstanding: traffic stopped, or every READ failed. */
        private void settle() throws Exception {
            long until = System.nanoTime() + WAIT.toNanos();
            while (!posted.isEmpty()) {
                if (System.nanoTime() > until) {
                    throw new IllegalStateException(provider + ": " + posted.size() + " READs still pending "
                            + WAIT.toSeconds() + " s on; failures " + failures);
                }
                Thread.sleep(5);
            }
            check(untyped.isEmpty(), "READs failed without a typed status: " + untyped);
        }

        private void check(boolean holds, String otherwise) {
            if (!holds) {
                broken.add(provider + ": " + otherwise);
            }
        }

        private void row(String fault, long inFlight, String ended, String detected, String serving,
                         String verifiedBytes) {
            FaultRows.row(fault, provider, inFlight, ended, detected, serving, verifiedBytes);
        }
    }

    private static boolean matches(ByteBuffer buffer, int at, int remoteOffset) {
        for (int i = 0; i < SIZE; i++) {
            if (buffer.get(at + i) != expected(remoteOffset + i)) {
                return false;
            }
        }
        return true;
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Cuts this host's side of the link: nothing leaves (netem), nothing is taken in (an ingress drop); no reset. */
    private static void linkDown() throws IOException, InterruptedException {
        LinkCut.down(NETDEV);
    }

    private static void linkUp() throws IOException, InterruptedException {
        LinkCut.up(NETDEV);
    }
}
