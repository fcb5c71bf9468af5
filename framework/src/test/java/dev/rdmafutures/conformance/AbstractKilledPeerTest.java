package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Completion;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer process is killed (SIGKILL) with 1,000 READs in flight (issue 15, item 1): a {@link KilledPeer} JVM on
 * the same host serves a readable region; this JVM posts 1,000 64 KiB READs to it and the peer is killed. Every
 * future ends within the disconnect timeout, each failure with a typed status; the disconnect callback fires once;
 * the runtime serves a new connection afterwards (a read of known bytes). Prints a {@code FAULT-ROW}.
 */
public abstract class AbstractKilledPeerTest extends ConformanceSupport {
    private static final int OPERATIONS = 1000;
    private static final int SIZE = 64 * 1024;
    /** The read limits asked for; the device may grant fewer (the row says how many). */
    private static final int READ_LIMIT = 128;
    /** What a READ the kill cut off may fail with: flushed, or the connection's end. */
    private static final List<Status> CUT_OFF = List.of(Status.CANCELED, Status.CONNECTION_RESET);
    /** How long the peer's JVM may take to start serving: long, as one under emulation (the VM tests) is slow. */
    private static final Duration PEER_START = Duration.ofMinutes(2);

    /** How bin/faults' table names the provider (and device). */
    protected abstract String providerLabel();

    /** The {@link KilledPeer} arguments: provider, the address to listen on, and the device where there is one. */
    protected abstract List<String> peerArguments();

    /** JVM flags the peer needs besides the class path (the verbs provider's native library). None by default. */
    protected List<String> peerJvmFlags() {
        return List.of();
    }

    /** The disconnect timeout the fixture's runtimes use: every READ must settle within it. */
    protected abstract Duration disconnectTimeout();

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void killingThePeerWithAThousandReadsInFlightEndsEveryOneTyped() throws Exception {
        try (PeerProcess peer = PeerProcess.start(KilledPeer.class, peerJvmFlags(), peerArguments())) {
            String[] fields = peer.awaitLine("READY ", PEER_START);
            InetSocketAddress address = new InetSocketAddress(fixture().deviceAddress(), Integer.parseInt(fields[1]));
            RemoteBuffer remote = new RemoteBuffer(Long.parseLong(fields[2]), KilledPeer.REGION,
                    Integer.parseInt(fields[3]));

            AdapterInfo adapter = client.adapterInfo();
            assertThat(adapter.maxInitiatorQueueDepth()).as("%s takes 1,000 requests in one queue", providerLabel())
                    .isGreaterThanOrEqualTo(OPERATIONS);
            AtomicInteger callbacks = new AtomicInteger();
            RdmaConnection connection = closeLater(await(client.connector().connect(address)
                    .withQueueDepths(OPERATIONS, 16).withReadLimits(READ_LIMIT, READ_LIMIT)
                    .onDisconnect(reason -> callbacks.incrementAndGet()).start()));
            int reads = connection.connectionData().readLimits().outbound();
            MemoryRegion sink = closeLater(client.register(ByteBuffer.allocateDirect(SIZE), Access.LOCAL_WRITE));
            List<CompletableFuture<Completion>> posted = new ArrayList<>();
            for (int i = 0; i < OPERATIONS; i++) {
                posted.add(connection.read(sink.slice(0, SIZE), remote, (long) (i % 16) * SIZE, OperationFlags.NONE));
            }
            long inFlight = posted.stream().filter(f -> !f.isDone()).count();
            long killedAt = System.nanoTime();
            assertThat(peer.kill(Duration.ofSeconds(20))).isTrue(); // SIGKILL

            Duration disconnectTimeout = disconnectTimeout();
            CompletableFuture.allOf(posted.stream().map(f -> f.handle((c, e) -> null))
                    .toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            Duration settled = Duration.ofNanos(System.nanoTime() - killedAt);
            Map<Status, Integer> failures = new EnumMap<>(Status.class);
            int completed = 0;
            for (CompletableFuture<Completion> read : posted) {
                Throwable error = read.handle((c, e) -> e).join();
                if (error == null) {
                    completed++;
                } else {
                    assertThat(error).isInstanceOf(RdmaException.class);
                    failures.merge(((RdmaException) error).status(), 1, Integer::sum);
                }
            }
            DisconnectReason reason = await(connection.disconnected());
            assertThat(inFlight).as("READs in flight at the kill").isPositive();
            assertThat(failures).as("the READs the kill cut off").isNotEmpty();
            assertThat(failures.keySet()).allMatch(CUT_OFF::contains);
            assertThat(settled).as("every READ settled within the disconnect timeout (connection %s, %s)", reason,
                    failures).isLessThan(disconnectTimeout);
            assertThat(reason).isIn(DisconnectReason.PEER_DISCONNECTED, DisconnectReason.CONNECTION_RESET);

            // The runtime serves a new connection after.
            assertOnePoller(client);
            Pair pair = connectPair(listen());
            ByteBuffer known = ByteBuffer.allocateDirect(64);
            for (int i = 0; i < 64; i++) {
                known.put(i, (byte) (i * 3 + 1));
            }
            MemoryRegion remoteOk = closeLater(server.register(known, Access.REMOTE_READ));
            assertThat(await(pair.client().read(sink.slice(0, 64), remoteOk.remote(), 0,
                    OperationFlags.NONE)).bytes()).isEqualTo(64);
            for (int i = 0; i < 64; i++) {
                assertThat(sink.buffer().get(i)).isEqualTo(known.get(i));
            }
            // Barrier: the client's one poller set up that connection and read over it after the first report, so a
            // second report, made by what the killed connection had still pending, would have run before this.
            assertThat(callbacks).as("disconnect callback calls").hasValue(1);
            assertThat(client.pollerErrorCount()).isZero();
            FaultRows.row("peer process killed (SIGKILL), 64 KiB READs, queue depth " + OPERATIONS + ", " + reads
                            + " reads outstanding on the wire", providerLabel(), inFlight,
                    failures + " " + completed + " completed; connection " + reason, settled.toMillis()
                            + " ms after the kill (disconnect timeout " + disconnectTimeout.toMillis() + " ms)",
                    "yes, one disconnect report", "64 B read on a new connection");
        }
    }
}
