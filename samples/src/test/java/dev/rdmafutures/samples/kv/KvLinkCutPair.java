package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.FaultRows;
import dev.rdmafutures.conformance.LinkCut;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The KV service while the link between two VMs is cut without a reset (issue 23, item 5), run by
 * {@code vm/pair-faults.sh} in {@code rdma-vm pair}: host B runs {@link KvServerProcess} on soft (port
 * {@value #SOFT_PORT}) and on verbs over rxe0 ({@value #VERBS_PORT}), each writing its {@code READY} line to
 * {@code kv-soft.log} or {@code kv-verbs.log} in the shared directory; host A loads each at {@code bin/kv}'s defaults
 * (8 connections x window 16, 90 % GET of 128 B values) with a client runtime whose {@code livenessTimeout} is
 * {@link #DEADLINE}, after a short warm-up load, and cuts its own side of the link ({@link LinkCut}) once the load
 * is under way. Per provider:
 * every operation outstanding ends with a typed status within the deadline, none hangs; every operation started is
 * accounted for and no value failed its checks; after the link is back, the same runtime reads the same server again
 * over new connections and every GET returns, whole, at least the version acknowledged before the cut: no
 * acknowledged PUT was lost. Prints a {@code FAULT-ROW} per provider and a {@code BROKEN} line per broken expectation;
 * exit 1 if there is one.
 *
 * <p>Usage: {@code KvLinkCutPair cut [OPERATIONS_BEFORE_CUT (2000)]} with {@code PEER_IP} and {@code SYNC} in the
 * environment.
 */
public final class KvLinkCutPair {
    static final int SOFT_PORT = 7310;
    static final int VERBS_PORT = 7311;
    private static final String NETDEV = "eth0";
    private static final int CONNECTIONS = 8;
    private static final int WINDOW = 16;
    private static final int KEYS = 10_000;
    private static final int VALUE = 128;
    private static final double GET_RATIO = 0.9;
    /** GETs per window slot after the link is back. */
    private static final int CHECKS_PER_SLOT = 20;
    /** Attempts of the warm-up load, whose connects may time out while both JVMs are still cold under emulation. */
    private static final int WARM_UP_ATTEMPTS = 3;
    /**
     * The client runtime's livenessTimeout: the deadline the cut must be detected by. Not LinkCutPair's 2 s: at full
     * load under TCG on a busy host, B's soft server stalled a connection for 2 s with the link whole.
     */
    private static final Duration DEADLINE = Duration.ofSeconds(4);
    /** What TCG emulation may add to a deadline (a poller late by a few scheduling rounds), as LinkCutPair allows. */
    private static final Duration SLACK = Duration.ofMillis(1500);
    /** Every other wait is bounded by this; also the load's duration had the cut never come. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** What an operation the cut cut off may end with: the deadline, flushed, the connection's end, or refused. */
    private static final Set<Status> CUT_OFF = EnumSet.of(Status.IO_TIMEOUT, Status.CANCELED,
            Status.CONNECTION_RESET, Status.CONNECTION_ABORTED, Status.CONNECTION_INVALID);

    /**
     * When the cut began (its first command, which already drops everything A sends) and how long applying it took,
     * what the client had done and had outstanding then.
     */
    private record Cut(long at, Duration applying, long completedBefore, long inFlight) {
    }

    private KvLinkCutPair() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !args[0].equals("cut")) {
            System.err.println("usage: KvLinkCutPair cut [OPERATIONS_BEFORE_CUT] (env PEER_IP, SYNC)");
            System.exit(2);
        }
        long before = args.length > 1 ? Long.parseLong(args[1]) : 2000;
        Path sync = Path.of(System.getenv("SYNC"));
        String peer = System.getenv("PEER_IP");
        List<String> broken = new ArrayList<>();
        RdmaRuntime.Builder soft = RdmaRuntime.builder().provider("soft").disconnectTimeout(DEADLINE);
        RdmaRuntime.Builder verbs = RdmaRuntime.builder().provider("verbs").providerOption("verbs.device", "rxe0")
                .connectTimeout(Duration.ofSeconds(10)).handshakeTimeout(Duration.ofSeconds(5))
                .disconnectTimeout(DEADLINE);
        new Case("soft (pair)", soft, sync.resolve("kv-soft.log"), peer, before, broken).run();
        new Case("verbs (rxe0, pair)", verbs, sync.resolve("kv-verbs.log"), peer, before, broken).run();
        broken.forEach(b -> System.out.println("BROKEN: " + b));
        System.exit(broken.isEmpty() ? 0 : 1);
    }

    /** One provider's KV load to B through one lasting cut. */
    private record Case(String provider, RdmaRuntime.Builder builder, Path serverLog, String peer, long before,
                        List<String> broken) {
        void run() {
            try {
                cut();
            } catch (Exception e) {
                check(false, "the case could not run: " + e);
                e.printStackTrace(System.out);
            }
        }

        private void cut() throws Exception {
            InetSocketAddress server = new InetSocketAddress(peer, port());
            LoadSpec load = LoadSpec.timed(CONNECTIONS, WINDOW, KEYS, VALUE, GET_RATIO, Duration.ZERO, WAIT);
            Expectations expectations = new Expectations(KEYS);
            // This thread owns the application-driven client runtime and runs the load; the cut comes from another
            // thread once the milestone is reached.
            try (RdmaRuntime client = builder.pollerThreads(0).livenessTimeout(DEADLINE).build()) {
                warmUp(client, server, expectations);
                RunControl control = new RunControl(load, before);
                CompletableFuture<Cut> cutting = control.milestone().thenApplyAsync(n -> linkDown(control));
                RunResult result;
                Cut cut;
                try {
                    result = RdmaKvClient.run(client, server, load, expectations, IdleStrategy.YIELD, control);
                } finally {
                    cut = control.milestone().isDone() ? cutting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS) : null;
                    if (cut != null) {
                        LinkCut.up(NETDEV); // whatever happened, the next case and LinkCutPair find the link whole
                    }
                }
                if (cut == null) {
                    check(false, "the load ended before " + before + " operations: " + result.failure());
                    return;
                }
                Outcomes o = result.outcomes();
                Duration detected = Duration.ofNanos(control.firstFailureAt() - cut.at());
                Duration settled = Duration.ofNanos(control.lastFailureAt() - cut.at());
                check(o.problems() == 0, "wrong, torn or unanswered: " + result.failure());
                check(!o.failedByStatus().isEmpty(), "no operation failed: the cut went unnoticed");
                check(CUT_OFF.containsAll(o.failedByStatus().keySet()), "not all typed as a cut: "
                        + o.failedByStatus());
                check(o.ended() == o.started(), "not every operation started ended: " + o);
                check(detected.compareTo(DEADLINE.dividedBy(2)) >= 0, "detected " + detected.toMillis()
                        + " ms after the cut began, before half the deadline");
                // From the cut's start, plus the time it took to apply (A's replies may leave until tc's drop holds).
                check(detected.compareTo(DEADLINE.multipliedBy(5).dividedBy(4).plus(SLACK).plus(cut.applying()))
                        <= 0, "detected " + detected.toMillis() + " ms after the cut began, later than the deadline "
                        + "allows");
                // Each connection notices on its own; all within twice the deadline is the bound we hold them to.
                check(settled.compareTo(DEADLINE.multipliedBy(2).plus(SLACK).plus(cut.applying())) <= 0,
                        "the last operation ended " + settled.toMillis() + " ms after the cut began");

                // The link is back: the same runtime reads every slot's keys again over new connections; each GET
                // must return at least the version acknowledged before the cut, whole: no acknowledged PUT was lost.
                LoadSpec reads = new LoadSpec(CONNECTIONS, WINDOW, KEYS, VALUE, 1, Duration.ZERO, Duration.ZERO,
                        CHECKS_PER_SLOT, 3);
                RunResult after = RdmaKvClient.run(client, server, reads, expectations, IdleStrategy.YIELD);
                check(after.failure() == null, "after the link came back: " + after.failure());
                String serving = after.failure() == null ? "yes: after restore the same client runtime read "
                        + after.gets() + " values over new connections" : "no: " + after.failure();
                FaultRows.row(String.format(Locale.ROOT, "KV service at full load (%d connections x window %d, "
                                + "%.0f %% GET of %d B values), link cut without a reset, lasting, after %d "
                                + "operations", CONNECTIONS, WINDOW, GET_RATIO * 100, VALUE, cut.completedBefore()),
                        provider, cut.inFlight(), o.failedByStatus() + " failed; every one of " + o.started()
                                + " started ended: " + o.checkedGets() + " GETs checked, " + o.acknowledgedPuts()
                                + " PUTs acknowledged, " + o.failed() + " failed typed",
                        detected.toMillis() + " ms after the cut began, all ended at " + settled.toMillis()
                                + " ms (deadline " + DEADLINE.toMillis() + " ms; applying the cut took "
                                + cut.applying().toMillis() + " ms)", serving,
                        o.checkedGets() + " GET values whole before the cut, 0 wrong or torn; after restore every "
                                + "GET at least the version acknowledged before the cut (no acknowledged PUT lost)");
            }
        }

        /** The port of B's server for this provider, from its READY line; waits for it up to 3 minutes. */
        private int port() throws IOException, InterruptedException {
            long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            for (;;) {
                Optional<String> ready = Files.exists(serverLog) ? Files.readAllLines(serverLog,
                        StandardCharsets.UTF_8).stream().filter(l -> l.startsWith("READY ")).findFirst()
                        : Optional.empty();
                if (ready.isPresent()) {
                    return Integer.parseInt(ready.get().split(" ")[1]);
                }
                if (System.nanoTime() > until) {
                    throw new IOException(serverLog + " has no READY line after 3 minutes");
                }
                Thread.sleep(200); // a file B writes in another VM: nothing to wait on but the file itself
            }
        }

        /**
         * A short GET-only load over one connection until one succeeds: both JVMs start cold under emulation, and
         * B's first handshakes can outlast a connect's deadline; the fault is measured on warm ones.
         */
        private void warmUp(RdmaRuntime client, InetSocketAddress server, Expectations expectations)
                throws Exception {
            LoadSpec few = new LoadSpec(1, 1, KEYS, VALUE, 1, Duration.ZERO, Duration.ZERO, 20, 5);
            for (int attempt = 1; ; attempt++) {
                try {
                    RunResult warm = RdmaKvClient.run(client, server, few, expectations, IdleStrategy.YIELD);
                    if (warm.ok() || attempt == WARM_UP_ATTEMPTS) {
                        check(warm.ok(), "the warm-up load failed: " + warm.failure());
                        return;
                    }
                } catch (Exception e) {
                    if (attempt == WARM_UP_ATTEMPTS) {
                        throw e;
                    }
                    System.out.println(provider + ": warm-up attempt " + attempt + " failed, again: " + e);
                }
            }
        }

        /** Cuts the link; runs on another thread while the load goes on. */
        private Cut linkDown(RunControl control) {
            // Started first, completed after: at most what was outstanding.
            long started = control.startedOperations();
            long completed = control.completedOperations();
            // The cut is timed from its start: tc drops what A sends from then on, and its one batch runs
            // slowly beside a load thread that keeps the VM's one vCPU busy.
            long begun = System.nanoTime();
            try {
                LinkCut.down(NETDEV);
            } catch (IOException e) {
                throw new CompletionException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(e);
            }
            return new Cut(begun, Duration.ofNanos(System.nanoTime() - begun), completed, started - completed);
        }

        private void check(boolean holds, String otherwise) {
            if (!holds) {
                broken.add(provider + ": " + otherwise);
            }
        }
    }
}
