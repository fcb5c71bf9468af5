package dev.rdmafutures.jmh;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
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
 * SEND/RECEIVE ping-pong: the client sends {@code size} bytes, the server's receive callback sends them back, the
 * client's receive completes (two-sided messaging, as {@code ib_send_lat} and sockperf ping-pong measure it);
 * beside it a busy-polling NIO ping-pong of the same sizes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class SendPingPongBenchmark {
    static final int RECEIVES = 4;

    /** One connection whose server echoes every message from its receive callback. */
    @State(Scope.Thread)
    public static class Rdma {
        @Param({"soft"})
        public String provider;
        @Param({"8", "4096"})
        public int size;
        @Param({"FUTURE", "CALLBACK"})
        public Api api;
        Pair pair;
        final Waiter waiter = new Waiter();

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new Pair(provider, Driver.INVOKED, IdleStrategy.BUSY_SPIN, size * (RECEIVES + 1), 16);
            new Echo(pair, size).start();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pair.close();
        }
    }

    /** The server: every receive completion sends the message back and posts the receive again. */
    static final class Echo implements CompletionCallback {
        private final Pair pair;
        private final int size;

        Echo(Pair pair, int size) {
            this.pair = pair;
            this.size = size;
        }

        void start() {
            for (int slot = 0; slot < RECEIVES; slot++) {
                pair.server.receive(pair.serverRegion, slot * size, size, this, slot);
            }
        }

        @Override
        public void completed(long slot, int bytes) {
            RdmaConnection server = pair.server;
            if (slot >= 0) { // a receive: echo it from its slot, then reuse the slot
                server.send(pair.serverRegion, (int) slot * size, bytes, this, -1);
                server.receive(pair.serverRegion, (int) slot * size, size, this, slot);
            }
        }

        @Override
        public void failed(long context, RdmaException error) {
            // the benchmark ended the connection
        }
    }

    /** The NIO baseline: two busy-polling threads; the request is the same size as the response. */
    @State(Scope.Benchmark)
    public static class Nio extends NioPingPong {
        @Override
        int requestSize() {
            return size;
        }
    }

    /** One message there and back. */
    @Benchmark
    public int sendReceive(Rdma s) {
        Pair p = s.pair;
        if (s.api == Api.FUTURE) {
            var reply = p.client.receive(p.clientRegion, 0, s.size);
            p.client.send(p.clientRegion, s.size, s.size);
            return reply.join().bytes();
        }
        Waiter w = s.waiter;
        w.arm(2);
        p.client.receive(p.clientRegion, 0, s.size, w, 0);
        p.client.send(p.clientRegion, s.size, s.size, w, 1);
        p.await(w);
        return w.result();
    }

    /** Baseline: a busy-polling NIO message there and back. */
    @Benchmark
    public ByteBuffer nioPingPong(Nio n) throws Exception {
        return n.roundTrip();
    }
}
