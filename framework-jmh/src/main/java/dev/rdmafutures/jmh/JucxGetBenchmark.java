package dev.rdmafutures.jmh;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * Baseline: JUCX (UCX's Java API, Debian's libucx0) one-sided GET over UCX's TCP transport on loopback, with
 * default settings otherwise: the latency of one GET at a time ({@link #getLatency}, as {@code ReadLatencyBenchmark})
 * and the throughput of a window of GETs reposted from their callbacks ({@link #getThroughput}, as
 * {@code ThroughputBenchmark}). UCX over TCP emulates GET with active messages, so a server thread progresses its
 * worker, busy, as the soft provider's server poller does. Needs {@code libucx0} (bin/prerequisites installs it).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class JucxGetBenchmark {

    /** A client and a server worker joined by one endpoint, with the server's buffer mapped for GET. */
    @State(Scope.Thread)
    public static class Ucx {
        @Param({"8", "4096", "65536"})
        public int size;
        @Param({"16"})
        public int window;
        UcpContext context;
        UcpWorker clientWorker;
        UcpWorker serverWorker;
        UcpListener listener;
        volatile UcpEndpoint serverEndpoint;
        UcpEndpoint endpoint;
        UcpMemory serverMemory;
        UcpMemory clientMemory;
        UcpRemoteKey remoteKey;
        Thread serverThread;
        volatile boolean running = true;
        volatile boolean closing;
        // the window: reposts from the GET callbacks, all on the benchmark thread (inside progress())
        int issued;
        int completed;
        final UcxCallback repost = new UcxCallback() {
            @Override
            public void onSuccess(UcpRequest request) {
                completed++;
                if (issued < ThroughputBenchmark.BATCH) {
                    get(issued++ % window);
                }
            }

            @Override
            public void onError(int status, String message) {
                throw new IllegalStateException("JUCX GET failed: " + status + " " + message);
            }
        };

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            context = new UcpContext(new UcpParams().requestRmaFeature().setConfig("TLS", "tcp"));
            serverWorker = context.newWorker(new UcpWorkerParams());
            clientWorker = context.newWorker(new UcpWorkerParams());
            listener = serverWorker.newListener(new UcpListenerParams()
                    .setSockAddr(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .setConnectionHandler(request -> serverEndpoint = serverWorker.newEndpoint(
                            new UcpEndpointParams().setConnectionRequest(request))));
            serverThread = new Thread(() -> {
                while (running) {
                    try {
                        serverWorker.progress();
                    } catch (Exception e) {
                        if (!closing) { // once the client closes, the server's endpoint reports the reset
                            throw new IllegalStateException(e);
                        }
                    }
                }
            }, "jucx-server");
            serverThread.start();
            serverMemory = context.registerMemory(ByteBuffer.allocateDirect(size * window));
            clientMemory = context.registerMemory(ByteBuffer.allocateDirect(size * window));
            endpoint = clientWorker.newEndpoint(new UcpEndpointParams().setSocketAddress(listener.getAddress()));
            remoteKey = endpoint.unpackRemoteKey(serverMemory.getRemoteKeyBuffer());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (serverEndpoint == null && System.nanoTime() < deadline) {
                clientWorker.progress();
            }
            if (serverEndpoint == null) {
                throw new IllegalStateException("JUCX server never saw the connection");
            }
        }

        void get(int slot) {
            endpoint.getNonBlocking(serverMemory.getAddress() + (long) slot * size, remoteKey,
                    clientMemory.getAddress() + (long) slot * size, size, repost);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            closing = true;
            remoteKey.close();
            UcpRequest close = endpoint.closeNonBlockingFlush(); // the server thread still answers the flush
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!close.isCompleted() && System.nanoTime() < deadline) {
                clientWorker.progress();
            }
            running = false;
            serverThread.join(5000);
            clientMemory.deregister();
            serverMemory.deregister();
            listener.close();
            clientWorker.close();
            serverWorker.close();
            context.close();
        }
    }

    /** One GET of {@code size} bytes, waited for by progressing the client worker. */
    @Benchmark
    public UcpRequest getLatency(Ucx u) throws Exception {
        UcpRequest r = u.endpoint.getNonBlocking(u.serverMemory.getAddress(), u.remoteKey,
                u.clientMemory.getAddress(), u.size, null);
        while (!r.isCompleted()) {
            u.clientWorker.progress();
        }
        return r;
    }

    /** {@code BATCH} GETs of {@code size} bytes, {@code window} in flight; ops per microsecond. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @OperationsPerInvocation(ThroughputBenchmark.BATCH)
    public int getThroughput(Ucx u) throws Exception {
        u.issued = 0;
        u.completed = 0;
        for (int slot = 0; slot < u.window; slot++) {
            u.get(u.issued++);
        }
        while (u.completed < ThroughputBenchmark.BATCH) {
            u.clientWorker.progress();
        }
        return u.completed;
    }
}
