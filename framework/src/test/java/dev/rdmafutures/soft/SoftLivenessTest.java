package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.FaultRows;
import dev.rdmafutures.conformance.ManualTicker;
import dev.rdmafutures.conformance.ProviderFixture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * soft's liveness deadline against a peer that completes MPA and then says nothing (its kernel still answers TCP):
 * nothing happens while the peer owes us nothing; a READ it never answers fails with IO_TIMEOUT once the deadline
 * passes, not after TCP's ~15 minutes, the connection ends CONNECTION_RESET, and the runtime goes on serving.
 */
class SoftLivenessTest extends ConformanceSupport {
    private static final Duration LIVENESS = Duration.ofMillis(600);
    private RdmaRuntime watched;

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    @BeforeEach
    void runtimeWithAShortDeadline() {
        watched = closeLater(fixture().runtimeBuilder().livenessTimeout(LIVENESS).build());
    }

    private RdmaConnection connectToSilentPeer(RdmaRuntime runtime, ServerSocket raw) throws Exception {
        CompletableFuture<RdmaConnection> c = runtime.connector()
                .connect(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort())).start();
        closeLater(RawPeer.accept(raw, WAIT)); // answers MPA, then never sends another byte
        return closeLater(await(c));
    }

    @Test
    void aSilentPeerOwedNothingKeepsItsConnection() throws Exception {
        ManualTicker clock = new ManualTicker();
        RdmaRuntime runtime = closeLater(fixture().runtimeBuilder().livenessTimeout(LIVENESS).ticker(clock).build());
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        RdmaConnection connection = connectToSilentPeer(runtime, raw);
        clock.advance(LIVENESS.multipliedBy(3)); // three deadlines of silence, without waiting for them
        ManualTicker.awaitDutyCycles(runtime, 3);
        assertThat(connection.isConnected()).isTrue();
        assertThat(connection.disconnected()).isNotDone();
    }

    @Test
    void theRuntimesTickerMovesTheDeadline() throws Exception {
        // An hour's deadline, reached in well under a second of real time: the watch counts on the Ticker.
        ManualTicker clock = new ManualTicker();
        Duration hour = Duration.ofHours(1);
        RdmaRuntime runtime = closeLater(fixture().runtimeBuilder().livenessTimeout(hour).ticker(clock).build());
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        RdmaConnection connection = connectToSilentPeer(runtime, raw);
        MemoryRegion sink = closeLater(runtime.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        CompletableFuture<Completion> read = connection.read(sink.slice(0, 8), new RemoteBuffer(0, 4096, 0x1234), 0,
                OperationFlags.NONE);
        ManualTicker.awaitDutyCycles(runtime, 3);
        assertThat(read).as("a real-time moment is no hour").isNotDone();
        // The watch looks every quarter of the deadline: the first look after the request left sees its bytes
        // taken (life), the next ones a silence that grows by each advance.
        for (int look = 0; look < 8 && !read.isDone(); look++) {
            clock.advance(hour.dividedBy(2));
            ManualTicker.awaitDutyCycles(runtime, 3);
        }
        assertThat(awaitFailure(read, Status.IO_TIMEOUT).getMessage()).contains("liveness deadline");
        assertThat(await(connection.disconnected())).isEqualTo(DisconnectReason.CONNECTION_RESET);
    }

    @Test
    void aReadTheSilentPeerNeverAnswersFailsWithIoTimeoutAfterTheDeadline() throws Exception {
        ServerSocket raw = closeLater(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
        RdmaConnection connection = connectToSilentPeer(watched, raw);
        MemoryRegion sink = closeLater(watched.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        RemoteBuffer far = new RemoteBuffer(0, 4096, 0x1234);
        long posted = System.nanoTime();
        CompletableFuture<Completion> first = connection.read(sink.slice(0, 8), far, 0, OperationFlags.NONE);
        CompletableFuture<Completion> second = connection.read(sink.slice(8, 8), far, 8, OperationFlags.NONE);
        RdmaException timedOut = awaitFailure(first, Status.IO_TIMEOUT);
        Duration took = Duration.ofNanos(System.nanoTime() - posted);
        assertThat(timedOut.getMessage()).contains("liveness deadline");
        assertThat(took).as("not before the deadline").isGreaterThanOrEqualTo(LIVENESS.multipliedBy(9).dividedBy(10));
        assertThat(awaitAnyFailure(second).status()).isIn(Status.IO_TIMEOUT, Status.CANCELED);
        assertThat(await(connection.disconnected())).isEqualTo(DisconnectReason.CONNECTION_RESET);
        assertThat(watched.metrics().operations().failed(Status.IO_TIMEOUT)).isEqualTo(1);

        // The runtime goes on: a new connection to a live soft peer works.
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> healthy = watched.connector().connect(listener.localAddress()).start();
        closeLater(await(await(listener.next()).accept()));
        MemoryRegion remote = closeLater(server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ));
        assertThat(await(closeLater(await(healthy)).read(sink.slice(0, 64), remote.remote(), 0,
                OperationFlags.NONE)).bytes()).isEqualTo(64);
        FaultRows.row("peer silent after MPA (kernel still ACKs), READs outstanding", "soft", 2, "IO_TIMEOUT=1 "
                + awaitAnyFailure(second).status() + "=1", took.toMillis() + " ms after the post (liveness deadline "
                + LIVENESS.toMillis() + " ms)", "yes", "64 B read on a new connection");
    }
}
