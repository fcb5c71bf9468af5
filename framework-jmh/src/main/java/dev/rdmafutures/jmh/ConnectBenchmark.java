package dev.rdmafutures.jmh;

import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
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
 * Connection establishment: a provider's connect+accept with 32 bytes of private data (for soft on loopback: TCP
 * handshake, MPA Request/Reply with private data and IRD/ORD, the RTR of RFC 6581) against the baseline of a raw
 * TCP connect plus one round trip, which is the least any connection with a request/reply exchange can cost. Both
 * close their connection without waiting, so both pay the same teardown.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
@State(Scope.Benchmark)
public class ConnectBenchmark {
    @Param({"soft"})
    public String provider;
    @Param({"BACKOFF"})
    public String idleStrategy;

    private RdmaRuntime server;
    private RdmaRuntime client;
    private RdmaListener listener;
    private ServerSocket echo;
    private Thread echoThread;
    private final byte[] privateData = new byte[32];

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        var strategy = dev.rdmafutures.IdleStrategy.valueOf(idleStrategy);
        server = Pair.builder(provider).idleStrategy(strategy).threadNamePrefix("bench-server").build();
        client = Pair.builder(provider).idleStrategy(strategy).threadNamePrefix("bench-client").build();
        listener = server.listen(new InetSocketAddress(Pair.address(provider), 0));
        listener.onRequest(r -> r.withPrivateData(privateData).accept().thenAccept(RdmaConnection::close));

        echo = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        echoThread = new Thread(this::echoLoop, "bench-tcp-echo");
        echoThread.setDaemon(true);
        echoThread.start();
    }

    private void echoLoop() {
        while (!echo.isClosed()) {
            try (Socket s = echo.accept()) {
                s.setTcpNoDelay(true);
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                int b = in.read();
                if (b >= 0) {
                    out.write(b);
                }
            } catch (IOException e) {
                if (echo.isClosed()) {
                    return;
                }
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        client.close();
        server.close();
        echo.close();
    }

    /** Connect with 32 bytes of private data, established on both sides, then close. */
    @Benchmark
    public RdmaConnection connectAccept() throws Exception {
        RdmaConnection c = client.connector().connect(listener.localAddress()).withPrivateData(privateData)
                .start().get(10, TimeUnit.SECONDS);
        c.close();
        return c;
    }

    /** Baseline: a raw TCP connect and one 1-byte round trip, then close. */
    @Benchmark
    public int tcpConnectRoundTrip() throws IOException {
        try (SocketChannel ch = SocketChannel.open()) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.connect(echo.getLocalSocketAddress());
            ch.write(ByteBuffer.wrap(new byte[] {1}));
            ByteBuffer reply = ByteBuffer.allocate(1);
            while (reply.hasRemaining() && ch.read(reply) >= 0) {
                Thread.onSpinWait();
            }
            return reply.get(0);
        }
    }
}
