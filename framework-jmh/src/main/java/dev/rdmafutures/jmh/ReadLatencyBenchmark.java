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

    /** The soft connection: both ends on one busy-spinning poller, the caller spinning on the future. */
    @State(Scope.Benchmark)
    public static class Soft {
        @Param({"8", "4096", "65536"})
        public int size;
        SoftPair pair;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = SoftPair.sharedPoller(size, 16);
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

    /** One soft RDMA Read of {@code size} bytes. */
    @Benchmark
    public Completion softRead(Soft s) {
        return SoftPair.spin(s.pair.client.read(s.pair.sink, 0, s.pair.source.remote(), 0, s.size));
    }

    /** Baseline: a busy-polling NIO request/response of the same sizes. */
    @Benchmark
    public ByteBuffer nioPingPong(Nio n) throws Exception {
        n.pingPong.roundTrip(n.request, n.response);
        return n.response;
    }
}
