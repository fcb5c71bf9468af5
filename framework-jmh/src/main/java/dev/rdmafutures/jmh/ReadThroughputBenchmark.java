package dev.rdmafutures.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
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

/**
 * Bulk RDMA Read throughput on the soft provider: {@code window} reads of 64 KiB kept outstanding, against an NIO
 * stream in which a server thread writes 64 KiB chunks as fast as the client reads them. Scores are 64 KiB
 * operations per millisecond: multiply by 64 KiB for bytes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
@State(Scope.Benchmark)
public class ReadThroughputBenchmark {
    static final int CHUNK = 64 * 1024;
    static final int BATCH = 64;

    @Param({"16"})
    public int window;

    private SoftPair soft;
    private SocketBaselines stream;
    private final ByteBuffer into = ByteBuffer.allocateDirect(CHUNK);
    private CompletableFuture<?>[] ring;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        soft = new SoftPair(CHUNK * window, window);
        stream = SocketBaselines.stream(CHUNK);
        ring = new CompletableFuture<?>[window];
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        soft.close();
        stream.close();
    }

    /** {@value #BATCH} reads of 64 KiB with up to {@code window} in flight. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object softReadWindow() {
        Object last = null;
        for (int i = 0; i < BATCH; i++) {
            int slot = i % window;
            if (ring[slot] != null) {
                last = SoftPair.spin(ring[slot]);
            }
            ring[slot] = soft.client.read(soft.sink, slot * CHUNK, soft.source.remote(), slot * CHUNK, CHUNK);
        }
        for (int i = 0; i < window; i++) {
            if (ring[i] != null) {
                last = SoftPair.spin(ring[i]);
                ring[i] = null;
            }
        }
        return last;
    }

    /** Baseline: {@value #BATCH} chunks of 64 KiB from an NIO stream. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public ByteBuffer nioStream() throws Exception {
        for (int i = 0; i < BATCH; i++) {
            stream.readFully(into);
        }
        return into;
    }

}
