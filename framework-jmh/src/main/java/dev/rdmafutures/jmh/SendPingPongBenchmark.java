package dev.rdmafutures.jmh;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.Status;
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
        /** The client's receive (bytes 0..size) and send (the next size bytes), built once. */
        RegionSlice replyInto;
        RegionSlice request;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            pair = new Pair(provider, Driver.INVOKED, IdleStrategy.BUSY_SPIN, size * (RECEIVES + 1), 16);
            replyInto = pair.clientRegion.slice(0, size);
            request = pair.clientRegion.slice(size, size);
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
        /** Receive slot {@code i}: {@code size} bytes from {@code i * size}, built once (a post allocates none). */
        private final RegionSlice[] slots;

        Echo(Pair pair, int size) {
            this.pair = pair;
            this.size = size;
            this.slots = Posts.slots(pair.serverRegion, RECEIVES, size);
        }

        void start() {
            for (int slot = 0; slot < RECEIVES; slot++) {
                Posts.check(pair.server.receive(slots[slot], this, slot), "RECEIVE");
            }
        }

        @Override
        public void completed(long slot, int bytes) {
            RdmaConnection server = pair.server;
            if (slot >= 0) { // a receive: echo it from its slot, then reuse the slot
                RegionSlice received = slots[(int) slot];
                RegionSlice echo = bytes == size ? received : pair.serverRegion.slice((int) slot * size, bytes);
                refused(server.send(echo, OperationFlags.NONE, this, -1), "SEND");
                refused(server.receive(received, this, slot), "RECEIVE");
            }
        }

        /**
         * A refused echo would leave the client waiting for ever: end the connection, so that its operations fail,
         * and throw (the runtime logs what a callback throws). Refusals once the benchmark ended it are expected.
         */
        private void refused(Status status, String operation) {
            if (status != Status.SUCCESS && pair.server.isConnected()) {
                pair.server.disconnect();
                throw new IllegalStateException("echo " + operation + " refused: " + status);
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
            var reply = p.client.receive(s.replyInto);
            p.client.send(s.request, OperationFlags.NONE);
            return reply.join().bytes();
        }
        Waiter w = s.waiter;
        w.arm(2);
        Posts.check(p.client.receive(s.replyInto, w, 0), "RECEIVE");
        Posts.check(p.client.send(s.request, OperationFlags.NONE, w, 1), "SEND");
        p.await(w);
        return w.result();
    }

    /** Baseline: a busy-polling NIO message there and back. */
    @Benchmark
    public ByteBuffer nioPingPong(Nio n) throws Exception {
        return n.roundTrip();
    }
}
