package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.SharedEndpoint;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Closing a runtime releases everything it started (threads, sockets, descriptors; Linux only, /proc), and what is
 * asked of it afterwards fails with one status that says so.
 */
public abstract class AbstractLifecycleConformanceTest extends ConformanceSupport {

    private static long openEndpoints() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    // sockets (soft), event channels, completion channels and eventfds (verbs)
                    return target.startsWith("socket:") || target.startsWith("anon_inode:")
                            || target.equals("/dev/infiniband/rdma_cm");
                } catch (IOException e) {
                    return false; // closed while listing
                }
            }).count();
        }
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void closingTheRuntimesStopsTheirThreadsAndReleasesEverySocket() throws Exception {
        server.close();
        client.close();
        long endpointsBefore = openEndpoints();

        RdmaRuntime a = fixture().runtimeBuilder().threadNamePrefix("lifecycle-a").pollerThreads(2).build();
        RdmaRuntime b = fixture().runtimeBuilder().threadNamePrefix("lifecycle-b").pollerThreads(2).build();
        assertThat(threadsNamed("lifecycle-")).isEqualTo(4);
        RdmaListener listener = a.listen(anyPort());
        SharedEndpoint shared = b.sharedEndpoint(anyPort());
        for (int i = 0; i < 5; i++) {
            CompletableFuture<RdmaConnection> c = b.connector().connect(listener.localAddress()).start();
            await(await(listener.next()).accept());
            await(c);
        }
        CompletableFuture<RdmaConnection> viaShared = b.connector().connect(listener.localAddress()).from(shared)
                .start();
        await(await(listener.next()).accept());
        await(viaShared);
        CompletableFuture<RdmaConnection> pending = b.connector().connect(listener.localAddress()).start();
        await(listener.next()); // left unanswered on purpose
        assertThat(openEndpoints()).isGreaterThan(endpointsBefore);

        b.close();
        a.close();
        assertThat(pending).isCompletedExceptionally();
        assertThat(threadsNamed("lifecycle-")).isZero();
        assertThat(openEndpoints()).isEqualTo(endpointsBefore);
    }

    @Test
    void operationsAfterTheRuntimeClosedSayTheConnectionIsGone() {
        RdmaRuntime closing = fixture().runtimeBuilder().threadNamePrefix("lifecycle-closing").build();
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = closing.connector().connect(listener.localAddress()).start();
        RdmaConnection serverSide = closeLater(await(await(listener.next()).accept()));
        RdmaConnection connection = await(c);
        MemoryRegion local = closing.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        MemoryRegion remote = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ,
                Access.REMOTE_WRITE);
        closing.close();
        // One answer for every refused operation: the connection is gone, not the region it named.
        awaitFailure(connection.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.CONNECTION_INVALID);
        awaitFailure(connection.write(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.CONNECTION_INVALID);
        awaitFailure(connection.send(local.slice(0, 8), OperationFlags.NONE), Status.CONNECTION_INVALID);
        awaitFailure(connection.receive(local.slice(0, 8)), Status.CONNECTION_INVALID);
        assertThat(await(serverSide.disconnected())).isIn(DisconnectReason.PEER_DISCONNECTED,
                DisconnectReason.CONNECTION_RESET);
    }
}
