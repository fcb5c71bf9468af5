package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PeerFaultPolicy;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ManualTicker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A peer address whose connections keep faulting (forged tokens) is refused for a back-off that grows, while other
 * addresses connect and read as before (issue 27, item 3). The server's clock is a {@link ManualTicker}: the test moves
 * it past each back-off instead of sleeping. The bystander's address, 127.0.0.2, is loopback on Linux, where the
 * project's tests run.
 */
class SoftPeerFaultPolicyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final InetAddress ATTACKER = InetAddress.getLoopbackAddress(); // 127.0.0.1
    private static final InetSocketAddress BYSTANDER = new InetSocketAddress("127.0.0.2", 0);
    private final ManualTicker ticker = new ManualTicker();
    private RdmaRuntime server;
    private RdmaRuntime client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** Starts the runtimes, the server's with {@code policy}, or the default one when null. */
    private RdmaListener start(PeerFaultPolicy policy) {
        RdmaRuntime.Builder builder = RdmaRuntime.builder().threadNamePrefix("server").ticker(ticker);
        server = (policy == null ? builder : builder.peerFaultPolicy(policy)).build();
        client = RdmaRuntime.builder().threadNamePrefix("client").build();
        RdmaListener listener = server.listen(new InetSocketAddress(ATTACKER, 0));
        listener.onRequest(request -> request.accept().thenAccept(c -> c.disconnected().thenRun(c::close)));
        return listener;
    }

    /** One connection from the attacker's address that READs through a forged token, and ends for it. */
    private void guess(RdmaListener listener, MemoryRegion sink) throws Exception {
        RdmaConnection connection = client.connector().connect(listener.localAddress()).start()
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        try {
            assertThat(failure(connection.read(sink.slice(0, 8), new RemoteBuffer(0, 8, 0x5eed), 0,
                    OperationFlags.NONE))).isEqualTo(Status.ACCESS_VIOLATION);
        } finally {
            connection.close();
        }
    }

    private static Status failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            return Status.SUCCESS;
        } catch (ExecutionException e) {
            return ((RdmaException) e.getCause()).status();
        }
    }

    private Status connectFrom(RdmaListener listener, InetSocketAddress from) throws Exception {
        var builder = client.connector().connect(listener.localAddress());
        if (from != null) {
            builder = builder.from(from);
        }
        CompletableFuture<RdmaConnection> connecting = builder.start();
        Status status = failure(connecting);
        if (status == Status.SUCCESS) {
            connecting.join().close();
        }
        return status;
    }

    @Test
    void anAddressThatKeepsFaultingIsRefusedForABackOffThatDoubles() throws Exception {
        RdmaListener listener = start(PeerFaultPolicy.of(3, Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(8)));
        MemoryRegion served = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
        MemoryRegion sink = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        for (int i = 0; i < 3; i++) {
            guess(listener, sink);
        }
        await(() -> server.metrics().peerBackOffs() == 1);
        assertThat(connectFrom(listener, null)).as("the attacker's address, in its back-off")
                .isEqualTo(Status.CONNECTION_REFUSED);

        // Another address connects and reads meanwhile, the application seeing its request as ever.
        RdmaConnection bystander = client.connector().connect(listener.localAddress()).from(BYSTANDER).start()
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(bystander.read(sink.slice(0, 8), served.remote(), 0, OperationFlags.NONE)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS).bytes()).isEqualTo(8);
        bystander.close();

        ticker.advance(Duration.ofSeconds(1));
        // Back after the first back-off, the bucket still nearly full (it empties at 3 per 10 s): one more fault
        // starts the second back-off.
        guess(listener, sink);
        await(() -> server.metrics().peerBackOffs() == 2);
        ticker.advance(Duration.ofSeconds(1));
        assertThat(connectFrom(listener, null)).as("1 s into the second back-off, of 2 s")
                .isEqualTo(Status.CONNECTION_REFUSED);
        ticker.advance(Duration.ofSeconds(1));
        assertThat(connectFrom(listener, null)).as("after the second back-off").isEqualTo(Status.SUCCESS);

        assertThat(server.metrics().peerRefusals()).isEqualTo(2);
        await(() -> server.metrics().rejects() == 2); // refusals are rejects too, counted once the reject is sent
    }

    @Test
    void faultsPacedBelowTheBucketsRateStartNoBackOff() throws Exception {
        RdmaListener listener = start(PeerFaultPolicy.of(3, Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(8)));
        MemoryRegion sink = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        for (int i = 0; i < 6; i++) {
            guess(listener, sink);
            ticker.advance(Duration.ofSeconds(5)); // the bucket empties of 1.5 faults meanwhile
        }
        assertThat(connectFrom(listener, null)).isEqualTo(Status.SUCCESS);
        assertThat(server.metrics().peerBackOffs()).isZero();
    }

    @Test
    void tokensThisSideRetiredDoNotCountAgainstThePeer() throws Exception {
        // A policy that starts a back-off at the first fault that counts.
        server = serverBuilder().peerFaultPolicy(PeerFaultPolicy.of(1, Duration.ofHours(1), Duration.ofHours(1),
                Duration.ofHours(1))).build();
        RdmaListener listener = server.listen(new InetSocketAddress(ATTACKER, 0));
        BlockingQueue<RdmaConnection> accepted = new LinkedBlockingQueue<>();
        listener.onRequest(request -> request.accept().thenAccept(accepted::add));
        MemoryRegion sink = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        RdmaConnection connection = connect(listener);
        RdmaConnection served = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);

        // A region deregistered while its peer still holds the token.
        MemoryRegion region = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
        RemoteBuffer regionToken = region.remote();
        region.close();
        assertThat(failure(read(connection, sink, regionToken))).isEqualTo(Status.ACCESS_VIOLATION);

        // A window rebound (its earlier token retired), then one whose region is deregistered under it.
        MemoryRegion backing = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
        MemoryWindow window = server.allocateMemoryWindow();
        connection = connect(listener);
        served = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        RemoteBuffer first = served.bind(window, backing, 0, 64, Access.REMOTE_READ).get(WAIT.toSeconds(),
                TimeUnit.SECONDS);
        RemoteBuffer second = served.bind(window, backing, 0, 64, Access.REMOTE_READ).get(WAIT.toSeconds(),
                TimeUnit.SECONDS);
        assertThat(failure(read(connection, sink, first))).isEqualTo(Status.ACCESS_VIOLATION);
        connection = connect(listener);
        served = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        RemoteBuffer third = served.bind(window, backing, 0, 64, Access.REMOTE_READ).get(WAIT.toSeconds(),
                TimeUnit.SECONDS);
        assertThat(failure(read(connection, sink, third))).as("the window's token works").isEqualTo(Status.SUCCESS);
        backing.close();
        assertThat(failure(read(connection, sink, third))).isEqualTo(Status.ACCESS_VIOLATION);

        assertThat(connectFrom(listener, null)).as("three retired tokens later").isEqualTo(Status.SUCCESS);
        assertThat(server.metrics().peerBackOffs()).isZero();
        // The same peer forging a token is refused at once.
        guess(listener, sink);
        await(() -> server.metrics().peerBackOffs() == 1);
        assertThat(connectFrom(listener, null)).isEqualTo(Status.CONNECTION_REFUSED);
    }

    private RdmaRuntime.Builder serverBuilder() {
        client = RdmaRuntime.builder().threadNamePrefix("client").build();
        return RdmaRuntime.builder().threadNamePrefix("server").ticker(ticker);
    }

    private RdmaConnection connect(RdmaListener listener) throws Exception {
        return client.connector().connect(listener.localAddress()).start().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static CompletableFuture<?> read(RdmaConnection connection, MemoryRegion sink, RemoteBuffer from) {
        return connection.read(sink.slice(0, 8), from.slice(0, 8), 0, OperationFlags.NONE);
    }

    @Test
    void theDefaultPolicyIsTheStandardOne() throws Exception {
        RdmaListener listener = start(null);
        MemoryRegion sink = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        int allowed = PeerFaultPolicy.standard().maxFaults();
        for (int i = 0; i < allowed; i++) {
            guess(listener, sink);
        }
        await(() -> server.metrics().peerBackOffs() == 1);
        assertThat(connectFrom(listener, null)).isEqualTo(Status.CONNECTION_REFUSED);
        ticker.advance(PeerFaultPolicy.standard().firstBackOff());
        assertThat(connectFrom(listener, null)).isEqualTo(Status.SUCCESS);
        assertThat(server.metrics().peerRefusals()).isEqualTo(1);
    }

    /** Waits for what the server's pollers count after the connection ended on the client's side. */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %s", WAIT).isLessThan(until);
            Thread.onSpinWait();
        }
    }
}
