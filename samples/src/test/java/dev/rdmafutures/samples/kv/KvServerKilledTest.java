package dev.rdmafutures.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.FaultRows;
import dev.rdmafutures.conformance.PeerProcess;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bin/faults}' KV row (issue 23, item 5): the KV service at full load, {@code bin/kv}'s defaults (8 connections
 * x window 16, 90 % GET, 128 B values, soft over loopback), while its server, a process of its own
 * ({@link KvServerProcess}), is killed with SIGKILL. Every operation the client had outstanding must end with a typed
 * status within {@link #SETTLE}, none may hang; every operation started is accounted for (a GET checked, a PUT
 * acknowledged, or failed typed) and no value failed its checks; then the same client runtime loads a new server
 * process. Prints a {@code FAULT-ROW}.
 */
class KvServerKilledTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int CONNECTIONS = 8;
    private static final int WINDOW = 16;
    private static final int KEYS = 10_000;
    private static final int VALUE = 128;
    private static final double GET_RATIO = 0.9;
    /** Operations completed before the kill: the load is well under way, every slot busy. */
    private static final long BEFORE_KILL = 50_000;
    /** Every operation must have ended this long after the kill; on loopback the kernel resets at once. */
    private static final Duration SETTLE = Duration.ofSeconds(10);
    /** The bound of every other wait, and the load's duration had the kill never come. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** What an operation the kill cut off may end with: flushed, the connection's end, or refused after it. */
    private static final Set<Status> CUT_OFF = EnumSet.of(Status.CANCELED, Status.CONNECTION_RESET,
            Status.CONNECTION_ABORTED, Status.CONNECTION_INVALID);

    /** When the server was killed, what the client had done and had outstanding then, and whether it ended. */
    private record Kill(long at, long completedBefore, long inFlight, boolean ended) {
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void killingTheServerAtFullLoadEndsEveryOperationTypedAndTearsNoValue() throws Exception {
        LoadSpec load = LoadSpec.timed(CONNECTIONS, WINDOW, KEYS, VALUE, GET_RATIO, Duration.ZERO, WAIT);
        // This thread owns the application-driven client runtime and runs the load on it, as bin/kv's load thread
        // does; the kill comes from another thread once the milestone is reached.
        try (RdmaRuntime client = RdmaRuntime.builder().pollerThreads(0).build();
             PeerProcess server = startServer()) {
            RunControl control = new RunControl(load, BEFORE_KILL);
            CompletableFuture<Kill> killed = control.milestone().thenApplyAsync(n -> kill(server, control));
            RunResult result = RdmaKvClient.run(client, address(server), load, new Expectations(KEYS),
                    IdleStrategy.YIELD, control);
            assertThat(control.milestone()).as("%d operations before the kill; %s", BEFORE_KILL, result.failure())
                    .isDone();
            Kill kill = killed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            Outcomes o = result.outcomes();
            Duration detected = Duration.ofNanos(control.firstFailureAt() - kill.at());
            Duration settled = Duration.ofNanos(control.lastFailureAt() - kill.at());

            assertThat(kill.ended()).as("the server process ended").isTrue();
            assertThat(o.problems()).as("wrong, torn or unanswered: %s", result.failure()).isZero();
            assertThat(result.failure()).as("the run saw the kill").isNotNull();
            assertThat(o.failedByStatus()).as("operations the kill cut off").isNotEmpty();
            assertThat(o.failedByStatus().keySet()).as("typed: %s", o.failedByStatus()).allMatch(CUT_OFF::contains);
            assertThat(o.ended()).as("every operation started ended one way: %s", o).isEqualTo(o.started());
            assertThat(o.failed()).as("one operation per slot").isLessThanOrEqualTo(CONNECTIONS * WINDOW);
            assertThat(o.checkedGets() + o.acknowledgedPuts()).isGreaterThanOrEqualTo(BEFORE_KILL);
            assertThat(o.checkedGets()).isPositive();
            assertThat(o.acknowledgedPuts()).isPositive();
            assertThat(kill.inFlight()).as("operations outstanding at the kill").isPositive();
            assertThat(detected).as("first failure after the kill").isGreaterThanOrEqualTo(Duration.ZERO);
            assertThat(settled).as("every operation ended within %s of the kill", SETTLE).isLessThan(SETTLE);

            // The client runtime goes on serving: it loads a new server process, every value checked.
            long checked;
            try (PeerProcess again = startServer()) {
                LoadSpec counted = new LoadSpec(CONNECTIONS, WINDOW, KEYS, VALUE, GET_RATIO, Duration.ZERO,
                        Duration.ZERO, 50, 2);
                RunResult after = RdmaKvClient.run(client, address(again), counted, new Expectations(KEYS),
                        IdleStrategy.YIELD);
                assertThat(after.failure()).isNull();
                assertThat(after.operations()).isEqualTo(CONNECTIONS * WINDOW * 50L);
                checked = after.operations();
            }
            FaultRows.row(String.format(Locale.ROOT, "KV server process killed (SIGKILL) at full load: %d "
                            + "connections x window %d, %.0f %% GET of %d B values, after %d operations",
                            CONNECTIONS, WINDOW, GET_RATIO * 100, VALUE, kill.completedBefore()), "soft",
                    kill.inFlight(), o.failedByStatus() + " failed; every one of " + o.started() + " started "
                            + "ended: " + o.checkedGets() + " GETs checked, " + o.acknowledgedPuts()
                            + " PUTs acknowledged, " + o.failed() + " failed typed",
                    detected.toMillis() + " ms after the kill, all ended at " + settled.toMillis() + " ms",
                    "yes: the same client runtime loaded a new server process, " + checked + " operations checked",
                    o.checkedGets() + " GET values whole (CRC-32C, content, version), 0 wrong or torn; "
                            + result.tornReads() + " torn reads read again");
        }
    }

    /** The server as bin/kv's RDMA service runs it, in a process of its own; it prints its port when it listens. */
    private static PeerProcess startServer() throws Exception {
        return PeerProcess.start(KvServerProcess.class, List.of("--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED"),
                List.of("--address", LOOPBACK.getHostAddress(), "--keys", String.valueOf(KEYS), "--value-size",
                        String.valueOf(VALUE), "--connections", String.valueOf(CONNECTIONS), "--window",
                        String.valueOf(WINDOW)));
    }

    private static InetSocketAddress address(PeerProcess server) throws InterruptedException {
        return new InetSocketAddress(LOOPBACK, Integer.parseInt(server.awaitLine("READY ", WAIT)[1]));
    }

    /** Kills the server; runs on another thread while the load goes on. */
    private static Kill kill(PeerProcess server, RunControl control) {
        // Started first, completed after: operations that started and ended between the two reads are not counted,
        // so this is at most what was outstanding.
        long started = control.startedOperations();
        long completed = control.completedOperations();
        long at = System.nanoTime();
        try {
            return new Kill(at, completed, started - completed, server.kill(WAIT));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted killing the server", e);
        }
    }
}
