package dev.rdmafutures.jmh;

import dev.rdmafutures.Completion;
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
 * RDMA Read round trip on the soft provider (request out, response placed, future done) against a busy-polling
 * NIO ping-pong that moves the same bytes: a 28-byte request and a {@code size}-byte response. Each side has its
 * own state, so only the one being measured has threads running.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class ReadLatencyBenchmark {

    /**
     * The soft connection. {@code INVOKED}: the benchmark thread drives the client runtime itself and the server
     * has a busy-spinning poller. {@code SHARED}: both ends on one busy-spinning poller, the caller spinning on the
     * future. Either way two threads are busy, as in the ping-pong.
     */
    @State(Scope.Thread)
    public static class Soft {
        @Param({"8", "4096", "65536"})
        public int size;
        @Param({"INVOKED", "SHARED"})
        public String client;
        SoftPair pair;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = client.equals("INVOKED") ? SoftPair.invokedClient(size, 16) : SoftPair.sharedPoller(size, 16);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** The NIO baseline: two busy-polling threads. */
    @State(Scope.Benchmark)
    public static class Nio {
        @Param({"8", "4096", "65536"})
        public int size;
        SocketBaselines pingPong;
        final ByteBuffer request = ByteBuffer.allocateDirect(SocketBaselines.REQUEST);
        ByteBuffer response;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pingPong = SocketBaselines.pingPong(size);
            response = ByteBuffer.allocateDirect(size);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            pingPong.close();
        }
    }

    /** One soft RDMA Read of {@code size} bytes; join() polls the invoked client runtime. */
    @Benchmark
    public Completion softRead(Soft s) {
        var read = s.pair.client.read(s.pair.sink, 0, s.pair.source.remote(), 0, s.size);
        return s.client.equals("INVOKED") ? read.join() : SoftPair.spin(read);
    }

    /** Baseline: a busy-polling NIO request/response of the same sizes. */
    @Benchmark
    public ByteBuffer nioPingPong(Nio n) throws Exception {
        n.pingPong.roundTrip(n.request, n.response);
        return n.response;
    }
}
