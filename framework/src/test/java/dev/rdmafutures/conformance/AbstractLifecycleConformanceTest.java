package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.SharedEndpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Closing a runtime releases everything it started: threads, sockets, descriptors. Linux only (/proc). */
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
}
