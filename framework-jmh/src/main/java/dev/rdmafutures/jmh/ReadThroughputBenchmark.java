package dev.rdmafutures.jmh;

import dev.rdmafutures.IdleStrategy;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Bulk RDMA Read throughput on the soft provider: {@code window} reads of 64 KiB kept in flight, each end on its
 * own poller, against an NIO stream in which a server thread writes 64 KiB chunks as fast as the client thread
 * reads them. Scores are 64 KiB operations per millisecond. Each side has its own state, so only the one being
 * measured has threads running.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class ReadThroughputBenchmark {
    static final int CHUNK = 64 * 1024;
    static final int BATCH = 256;

    /** The soft connection with one poller per end. */
    @State(Scope.Benchmark)
    public static class Soft {
        @Param({"16"})
        public int window;
        @Param({"BLOCKING"})
        public String idle;
        SoftPair pair;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = SoftPair.separatePollers(CHUNK * window, window, IdleStrategy.valueOf(idle));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** The NIO stream baseline. */
    @State(Scope.Benchmark)
    public static class Nio {
        SocketBaselines stream;
        final ByteBuffer into = ByteBuffer.allocateDirect(CHUNK);

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            stream = SocketBaselines.stream(CHUNK);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            stream.close();
        }
    }

    /**
     * {@value #BATCH} reads of 64 KiB with {@code window} in flight, each completion posting the next read from
     * its callback (on the poller, as NDK's RequestCompletion would), the caller waiting once per batch.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object softReadWindow(Soft s) throws Exception {
        CompletableFuture<Void> batchDone = new CompletableFuture<>();
        AtomicInteger issued = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        for (int slot = 0; slot < Math.min(s.window, BATCH); slot++) {
            issued.incrementAndGet();
            readInto(s.pair, slot, issued, completed, batchDone);
        }
        return batchDone.get(30, TimeUnit.SECONDS);
    }

    private static void readInto(SoftPair pair, int slot, AtomicInteger issued, AtomicInteger completed,
                                 CompletableFuture<Void> done) {
        pair.client.read(pair.sink, slot * CHUNK, pair.source.remote(), slot * CHUNK, CHUNK)
                .whenComplete((c, e) -> {
                    if (e != null) {
                        done.completeExceptionally(e);
                    } else if (completed.incrementAndGet() == BATCH) {
                        done.complete(null);
                    } else if (issued.incrementAndGet() <= BATCH) {
                        readInto(pair, slot, issued, completed, done);
                    }
                });
    }

    /** Baseline: {@value #BATCH} chunks of 64 KiB from an NIO stream. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public ByteBuffer nioStream(Nio n) throws Exception {
        for (int i = 0; i < BATCH; i++) {
            n.stream.readFully(n.into);
        }
        return n.into;
    }
}
