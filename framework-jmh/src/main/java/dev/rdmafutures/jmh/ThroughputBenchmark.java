package dev.rdmafutures.jmh;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
 * Bulk one-sided throughput: {@code window} READs or WRITEs of {@code size} bytes kept in flight, each completion
 * posting the next from its callback (NDK's RequestCompletion pattern, allocation-free); beside it an NIO stream in
 * which a server thread writes {@code size}-byte chunks as fast as the client reads them. Scores are operations per
 * millisecond; multiply by {@code size} for bytes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class ThroughputBenchmark {
    static final int BATCH = 256;

    /** One operation kind. */
    public enum Op { READ, WRITE }

    /** One connection and a window of operations kept in flight from completion callbacks. */
    @State(Scope.Thread)
    public static class Rdma implements CompletionCallback {
        @Param({"soft"})
        public String provider;
        @Param({"READ", "WRITE"})
        public Op op;
        @Param({"65536"})
        public int size;
        @Param({"16"})
        public int window;
        @Param({"INVOKED"})
        public Driver driver;
        Pair pair;
        /** Slot {@code i}'s local side, built once: a slice per post would allocate one per operation. */
        private RegionSlice[] slots;
        private Thread waiter;
        private final AtomicInteger issued = new AtomicInteger();
        private int completed; // the client's completion thread only
        private volatile boolean batchDone;
        private RdmaException error;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            IdleStrategy serverIdle = provider.equals("soft") ? IdleStrategy.BUSY_SPIN : IdleStrategy.BLOCKING;
            pair = new Pair(provider, driver, serverIdle, size * window, window);
            slots = Posts.slots(pair.clientRegion, window, size);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }

        /** Runs {@value #BATCH} operations, {@code window} in flight, and waits for the last. */
        void batch() {
            waiter = Thread.currentThread();
            issued.set(0);
            completed = 0;
            batchDone = false;
            for (int slot = 0; slot < Math.min(window, BATCH); slot++) {
                issued.incrementAndGet();
                post(slot);
            }
            while (!batchDone) {
                if (driver == Driver.INVOKED) {
                    pair.clientRuntime.poll();
                } else {
                    LockSupport.parkNanos(this, 1_000_000); // the last completion unparks it
                }
            }
            if (error != null) {
                throw error;
            }
        }

        /** Posts slot {@code slot}; a refusal ends the batch as a failed operation does. */
        private void post(int slot) {
            long offset = (long) slot * size;
            Status status = op == Op.READ
                    ? pair.client.read(slots[slot], pair.serverBuffer, offset, OperationFlags.NONE, this, slot)
                    : pair.client.write(slots[slot], pair.serverBuffer, offset, OperationFlags.NONE, this, slot);
            if (status != Status.SUCCESS) {
                failed(slot, Posts.refusal(status, op.name()));
            }
        }

        @Override
        public void completed(long slot, int bytes) {
            if (++completed == BATCH) {
                batchDone = true;
                LockSupport.unpark(waiter);
            } else if (issued.getAndIncrement() < BATCH) {
                post((int) slot);
            }
        }

        @Override
        public void failed(long slot, RdmaException e) {
            error = e;
            batchDone = true;
            LockSupport.unpark(waiter);
        }
    }

    /** The NIO stream baseline. */
    @State(Scope.Benchmark)
    public static class Nio {
        @Param({"65536"})
        public int size;
        SocketBaselines stream;
        ByteBuffer into;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            stream = SocketBaselines.stream(size);
            into = ByteBuffer.allocateDirect(size);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            stream.close();
        }
    }

    /** {@value #BATCH} operations of {@code size} bytes with {@code window} in flight. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rdma(Rdma s) {
        s.batch();
    }

    /** Baseline: {@value #BATCH} chunks of {@code size} bytes from an NIO stream. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public ByteBuffer nioStream(Nio n) throws Exception {
        for (int i = 0; i < BATCH; i++) {
            n.stream.readFully(n.into);
        }
        return n.into;
    }
}
