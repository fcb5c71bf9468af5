package dev.rdmafutures.samples;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.ConnectionMetrics;
import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RuntimeMetrics;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The main job: one runtime (the {@code soft} provider unless {@code -Dprovider=...} says otherwise), a listener
 * that accepts one client and rejects another with private data, a connect with private data and read limits,
 * the negotiated connection data, the rejection's error, a tour of the data path with every byte checked, the
 * runtime's metrics, a clean shutdown, and READ latency and throughput beside TCP on loopback, like for like
 * ({@link ReadComparison}), then the rate of 8 B READs with 16 in flight beside pipelined TCP requests
 * ({@link MessageRateComparison}): the shapes {@code bin/bench} reports. Prints a summary; exits 0 on success, 1 if
 * any step did not behave.
 */
public final class Demo {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(System.getProperty("provider", "soft"), System.out));
    }

    static int run(String provider, PrintStream out) throws Exception {
        int status = tour(provider, out);
        // After the tour's runtime is closed: nothing else runs while READ and TCP are measured.
        new ReadComparison(provider, out).run();
        new MessageRateComparison(provider, out).run();
        out.println(status == 0 ? "demo finished: OK" : "demo finished: FAILED");
        return status;
    }

    private static int tour(String provider, PrintStream out) throws Exception {
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider(provider).build()) {
            out.println("RdmaFutures demo on " + runtime.adapterInfo());
            RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
            listener.onRequest(request -> {
                String hello = text(request.privateData());
                if (hello.startsWith("let me in")) {
                    request.withReadLimits(6, 2).withPrivateData(bytes("welcome, " + hello.substring(10)))
                            .onDisconnect(reason -> out.println("server: peer disconnected (" + reason + ")"))
                            .accept().whenComplete((c, e) -> {
                                if (e == null) {
                                    accepted.complete(c);
                                } else {
                                    accepted.completeExceptionally(e);
                                }
                            });
                } else {
                    request.reject(bytes("not on the list: " + hello));
                }
            });
            out.println("listening on " + listener.localAddress());

            RdmaConnection connection = get(runtime.connector().connect(listener.localAddress())
                    .withReadLimits(4, 8).withPrivateData(bytes("let me in alice")).start());
            ConnectionData data = connection.connectionData();
            out.printf("connected %s -> %s%n", connection.localAddress(), connection.remoteAddress());
            out.printf("  asked read limits in=4 out=8, server asked in=6 out=2%n");
            out.printf("  negotiated read limits: inbound=%d outbound=%d%n",
                    data.readLimits().inbound(), data.readLimits().outbound());
            out.printf("  server's private data: \"%s\"%n", text(data.peerPrivateData()));

            int status = 0;
            try {
                get(runtime.connector().connect(listener.localAddress())
                        .withPrivateData(bytes("mallory")).start());
                out.println("UNEXPECTED: mallory was let in");
                status = 1;
            } catch (ExecutionException e) {
                RdmaException error = (RdmaException) e.getCause();
                out.printf("rejected: status=%s retryable=%s%n", error.status(), error.isRetryable());
                out.printf("  server's reject private data: \"%s\"%n", text(error.peerPrivateData()));
            }

            RdmaConnection serverSide = accepted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (!new DataPathTour(runtime, connection, serverSide, out).run()) {
                out.println("UNEXPECTED: corrupted data");
                status = 1;
            }

            printMetrics(runtime, connection, out);
            get(connection.disconnect());
            out.println("disconnected: " + get(connection.disconnected()));
            boolean limitsRight = data.readLimits().inbound() == 2 && data.readLimits().outbound() == 6;
            if (!limitsRight) {
                out.println("UNEXPECTED negotiated limits");
                status = 1;
            }
            return status;
        }
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8).replace("\0", "");
    }

    /** What the runtime counted (RdmaRuntime.metrics, RdmaConnection.metrics): the same counters Micrometer reads. */
    private static void printMetrics(RdmaRuntime runtime, RdmaConnection connection, PrintStream out) {
        RuntimeMetrics metrics = runtime.metrics();
        OperationMetrics ops = metrics.operations();
        out.printf("metrics: %d operations posted, %d completed, %d failed; MB read %.1f, written %.1f, sent %.1f,"
                        + " received %.1f%n", ops.posted(), ops.completed(), ops.failed(), ops.bytesRead() / 1e6,
                ops.bytesWritten() / 1e6, ops.bytesSent() / 1e6, ops.bytesReceived() / 1e6);
        out.printf("  connections: %d connected, %d accepted, %d rejected, %d connect failures %s, %d open%n",
                metrics.connects(), metrics.accepts(), metrics.rejects(),
                metrics.connectFailures().values().stream().mapToLong(Long::longValue).sum(),
                metrics.connectFailures(), metrics.open());
        ConnectionMetrics own = connection.metrics();
        out.printf("  this connection: %d operations completed, %d slots in use%n",
                own.operations().completed(), own.initiatorSlotsUsed());
        for (PollerMetrics poller : metrics.pollers()) {
            out.printf("  poller %s: %d duty cycles, %d with work, idle %.0f%% of %.1f s%n", poller.name(),
                    poller.dutyCycles(), poller.workCycles(), 100 * poller.idleRatio(),
                    poller.uptime().toMillis() / 1e3);
        }
    }
}
