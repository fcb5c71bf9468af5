package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.FaultRows;
import dev.rdmafutures.conformance.ProviderFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer process is killed (SIGKILL) with 1,000 READs in flight (issue 15, item 1, soft on the host): every
 * future ends, each failure with a typed status, within the disconnect timeout; the disconnect callback fires once;
 * the runtime serves a new connection afterwards.
 */
class SoftKilledPeerTest extends ConformanceSupport {
    private static final Logger LOG = LoggerFactory.getLogger(SoftKilledPeerTest.class);
    private static final int OPERATIONS = 1000;
    private static final int SIZE = 64 * 1024;

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    @Test
    void killingThePeerWithAThousandReadsInFlightEndsEveryOneTyped() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process peer = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                KilledPeer.class.getName()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                    StandardCharsets.UTF_8));
            String ready;
            do {
                ready = out.readLine();
            } while (ready != null && !ready.startsWith("READY "));
            assertThat(ready).as("the peer started").isNotNull();
            String[] fields = ready.split(" ");
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    Integer.parseInt(fields[1]));
            RemoteBuffer remote = new RemoteBuffer(0, 1 << 20, Integer.parseInt(fields[2]));

            RdmaRuntime runtime = client;
            AtomicInteger callbacks = new AtomicInteger();
            RdmaConnection connection = closeLater(await(runtime.connector().connect(address)
                    .withQueueDepths(OPERATIONS, 16).withReadLimits(128, 128)
                    .onDisconnect(reason -> callbacks.incrementAndGet()).start()));
            MemoryRegion sink = closeLater(runtime.register(ByteBuffer.allocateDirect(SIZE), Access.LOCAL_WRITE));
            List<CompletableFuture<Completion>> reads = new ArrayList<>();
            for (int i = 0; i < OPERATIONS; i++) {
                reads.add(connection.read(sink, 0, remote, (long) (i % 16) * SIZE, SIZE));
            }
            long inFlight = reads.stream().filter(f -> !f.isDone()).count();
            long killedAt = System.nanoTime();
            peer.destroyForcibly(); // SIGKILL
            assertThat(peer.waitFor(20, TimeUnit.SECONDS)).isTrue();

            CompletableFuture.allOf(reads.stream().map(f -> f.handle((c, e) -> null))
                    .toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            Duration settled = Duration.ofNanos(System.nanoTime() - killedAt);
            Map<Status, Integer> failures = new EnumMap<>(Status.class);
            int completed = 0;
            for (CompletableFuture<Completion> read : reads) {
                Throwable error = read.handle((c, e) -> e).join();
                if (error == null) {
                    completed++;
                } else {
                    assertThat(error).isInstanceOf(RdmaException.class);
                    failures.merge(((RdmaException) error).status(), 1, Integer::sum);
                }
            }
            LOG.info("peer killed with {} of {} READs in flight: {} completed, failed {}, settled in {} ms",
                    inFlight, OPERATIONS, completed, failures, settled.toMillis());
            assertThat(inFlight).as("READs in flight at the kill").isPositive();
            assertThat(failures).as("the READs the kill cut off").isNotEmpty();
            assertThat(failures.keySet()).allMatch(s -> s == Status.CANCELED || s == Status.CONNECTION_RESET);
            assertThat(settled).as("every READ settled within the disconnect timeout")
                    .isLessThan(SoftFixture.DISCONNECT_TIMEOUT);
            assertThat(await(connection.disconnected()))
                    .isIn(DisconnectReason.PEER_DISCONNECTED, DisconnectReason.CONNECTION_RESET);
            Thread.sleep(100); // a second report would come right after the first
            assertThat(callbacks).as("disconnect callback calls").hasValue(1);
            assertThat(runtime.pollerErrorCount()).isZero();

            // The runtime serves a new connection after.
            Pair pair = connectPair(listen());
            ByteBuffer known = ByteBuffer.allocateDirect(64);
            for (int i = 0; i < 64; i++) {
                known.put(i, (byte) (i * 3 + 1));
            }
            MemoryRegion remoteOk = closeLater(server.register(known, Access.REMOTE_READ));
            assertThat(await(pair.client().read(sink, 0, remoteOk.remote(), 0, 64)).bytes()).isEqualTo(64);
            for (int i = 0; i < 64; i++) {
                assertThat(sink.buffer().get(i)).isEqualTo(known.get(i));
            }
            FaultRows.row("peer process killed (SIGKILL), 64 KiB READs", "soft", inFlight, failures + " " + completed
                    + " completed", settled.toMillis() + " ms after the kill (disconnect timeout "
                    + SoftFixture.DISCONNECT_TIMEOUT.toMillis() + " ms)", "yes, one disconnect report",
                    "64 B read on a new connection");
        } finally {
            peer.destroyForcibly();
        }
    }
}
