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
 * NIO ping-pong that moves the same bytes: a 28-byte request and a {@code size}-byte response.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
@State(Scope.Benchmark)
public class ReadLatencyBenchmark {
    @Param({"8", "4096", "65536"})
    public int size;

    private SoftPair soft;
    private SocketBaselines pingPong;
    private final ByteBuffer request = ByteBuffer.allocateDirect(SocketBaselines.REQUEST);
    private ByteBuffer response;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        soft = new SoftPair(size, 16);
        pingPong = SocketBaselines.pingPong(size);
        response = ByteBuffer.allocateDirect(size);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        soft.close();
        pingPong.close();
    }

    /** One soft RDMA Read of {@code size} bytes. */
    @Benchmark
    public Completion softRead() {
        return SoftPair.spin(soft.client.read(soft.sink, 0, soft.source.remote(), 0, size));
    }

    /** Baseline: a busy-polling NIO request/response of the same sizes. */
    @Benchmark
    public ByteBuffer nioPingPong() throws Exception {
        pingPong.roundTrip(request, response);
        return response;
    }
}
