package dev.rdmafutures.jmh;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.OperationFlags;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RDMA Read round trip, one outstanding (request out, response placed, completion delivered), through the future
 * or the callback API, with the client runtime driven by the benchmark thread or by a poller with each idle
 * strategy; beside it a busy-polling NIO ping-pong moving the same bytes (a 28-byte request, a {@code size}-byte
 * response). Each side has its own state, so only the one being measured has threads running.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class ReadLatencyBenchmark {

    /** One connection; the server answers reads on a busy-spinning poller (soft) or in the NIC (verbs). */
    @State(Scope.Thread)
    public static class Rdma {
        @Param({"soft"})
        public String provider;
        @Param({"8", "4096", "65536"})
        public int size;
        @Param({"FUTURE", "CALLBACK"})
        public Api api;
        @Param({"INVOKED"})
        public Driver driver;
        Pair pair;
        final Waiter waiter = new Waiter();

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            // verbs answers reads in hardware: its server poller sleeps, as ib_read_lat's server does
            IdleStrategy serverIdle = provider.equals("soft") ? IdleStrategy.BUSY_SPIN : IdleStrategy.BLOCKING;
            pair = new Pair(provider, driver, serverIdle, size, 16);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** The NIO baseline: two busy-polling threads; the request is an RDMA Read Request's 28 bytes. */
    @State(Scope.Benchmark)
    public static class Nio extends NioPingPong {
        @Override
        int requestSize() {
            return SocketBaselines.READ_REQUEST;
        }
    }

    @Benchmark
    public int read(Rdma s) {
        Pair p = s.pair;
        // the client region is size bytes: the whole region is the local side, no slice to allocate per READ
        if (s.api == Api.FUTURE) {
            return p.client.read(p.clientRegion, p.serverBuffer, 0, OperationFlags.NONE).join().bytes();
        }
        Waiter w = s.waiter;
        w.arm(1);
        Posts.check(p.client.read(p.clientRegion, p.serverBuffer, 0, OperationFlags.NONE, w, 0), "READ");
        p.await(w);
        return w.result();
    }

    /** Baseline: a busy-polling NIO request/response of the same sizes. */
    @Benchmark
    public ByteBuffer nioPingPong(Nio n) throws Exception {
        return n.roundTrip();
    }
}
