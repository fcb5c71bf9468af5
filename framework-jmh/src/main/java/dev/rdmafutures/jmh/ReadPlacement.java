package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether the soft READ's fast and slow modes follow the host's placement of the vCPUs: rounds of an 8 B READ p50
 * (1 s after 0.3 s of warm-up), each between two {@link CoreToCore} probes. Both runtimes are application-driven, by
 * this thread (client) and a server thread that sleeps while the probes run, so nothing else spins then.
 *
 * <p>Usage: {@code ReadPlacement ROUNDS}; prints one line per round: the probes before and after, and the p50.
 */
public final class ReadPlacement {
    private static final long WARM_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    private static final long MEASURE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    private static volatile boolean serverPolls = true;
    private static volatile boolean closing;

    private ReadPlacement() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        RdmaRuntime server = Pair.builder("soft").threadNamePrefix("placement-server").pollerThreads(0).build();
        RdmaRuntime client = Pair.builder("soft").threadNamePrefix("placement-client").pollerThreads(0).build();
        Thread serverThread = new Thread(() -> {
            while (!closing) {
                if (serverPolls) {
                    server.poll();
                } else {
                    LockSupport.park();
                }
            }
        }, "placement-server");
        server.handOver(serverThread);
        serverThread.start();
        try {
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.onRequest(request -> request.accept());
            MemoryRegion exposed = server.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE,
                    Access.REMOTE_READ);
            MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
            RegionSlice first8 = local.slice(0, 8); // built once: a slice per READ would allocate one per READ
            CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress()).start();
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (!connecting.isDone() && System.nanoTime() - deadline < 0) {
                client.poll();
            }
            RdmaConnection connection = connecting.getNow(null);
            if (connection == null) {
                throw new IllegalStateException("no connection within 15 s");
            }
            Waiter w = new Waiter();
            long[] samples = new long[1 << 20];
            for (int round = 0; round < rounds; round++) {
                serverPolls = false;
                double before = CoreToCore.roundTripNanos();
                serverPolls = true;
                LockSupport.unpark(serverThread);
                int n = 0;
                long warm = System.nanoTime() + WARM_UP_NANOS;
                long end = warm + MEASURE_NANOS;
                long t;
                do {
                    w.arm(1);
                    long t0 = System.nanoTime();
                    Posts.check(connection.read(first8, exposed.remote(), 0, OperationFlags.NONE, w, 0), "READ");
                    long wait = t0 + WAIT_NANOS;
                    while (!w.isDone()) {
                        client.poll();
                        if (System.nanoTime() - wait > 0) {
                            throw new IllegalStateException("a READ did not complete within 15 s");
                        }
                    }
                    t = System.nanoTime();
                    w.result();
                    if (t - warm > 0 && n < samples.length) {
                        samples[n++] = t - t0;
                    }
                } while (t - end < 0);
                serverPolls = false;
                double after = CoreToCore.roundTripNanos();
                long[] sorted = Arrays.copyOf(samples, n);
                Arrays.sort(sorted);
                System.out.printf(Locale.ROOT, "round %d core-to-core %.0f ns (%s) -> %.0f ns (%s)  READ p50 %.2f us%n",
                        round, before, CoreToCore.mode(before), after, CoreToCore.mode(after), sorted[n / 2] / 1e3);
                serverPolls = true;
                LockSupport.unpark(serverThread);
            }
        } finally {
            client.close();
            closing = true;
            LockSupport.unpark(serverThread);
            serverThread.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
            server.close();
        }
    }
}
