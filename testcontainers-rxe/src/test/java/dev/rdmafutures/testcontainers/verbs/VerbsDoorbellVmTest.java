package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The READs one duty cycle posts on a queue pair reach the device with one {@code ibv_post_send}, one doorbell. rxe's
 * libibverbs provider rings its doorbell with one {@code write(2)} to the uverbs device per {@code ibv_post_send}, and
 * the kernel counts a thread's write calls ({@code syscw} in {@code /proc/thread-self/io}): on a runtime this test
 * thread drives ({@code pollerThreads(0)}), the duty cycle that posts sixteen READs writes once, where one post per
 * READ wrote sixteen times. (siw's provider skips the doorbell while its send queue is busy, so it cannot tell.)
 */
@Tag("verbs-conformance") // bin/test-vm --verbs runs it with the conformance suites
@InRdmaVm(devices = "rxe")
class VerbsDoorbellVmTest extends ConformanceSupport {
    private static final int READS = 16;
    private static final int SIZE = 64;

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture("rxe0");
    }

    @Test
    void theReadsOfOneDutyCycleRingTheDoorbellOnce() throws IOException {
        RdmaRuntime invoked = closeLater(fixture().runtimeBuilder().pollerThreads(0).threadNamePrefix("invoked")
                .build());
        RdmaListener listener = listen();
        listener.onRequest(r -> r.accept()); // the server's end closes with its runtime
        RdmaConnection connection = closeLater(await(invoked.connector().connect(listener.localAddress()).start()));
        MemoryRegion remote = closeLater(server.register(ByteBuffer.allocateDirect(READS * SIZE),
                Access.REMOTE_READ));
        MemoryRegion local = closeLater(invoked.register(ByteBuffer.allocateDirect(READS * SIZE),
                Access.LOCAL_WRITE));
        // What a first post sets up happens here.
        await(connection.read(local.slice(0, SIZE), remote.remote(), 0, OperationFlags.NONE));
        List<CompletableFuture<Completion>> reads = new ArrayList<>();
        for (int i = 0; i < READS; i++) {
            // Posted by the owner: each waits in the poller's command queue for the next duty cycle.
            reads.add(connection.read(local.slice(i * SIZE, SIZE), remote.remote(), i * SIZE, OperationFlags.NONE));
        }
        long before = writeCalls();
        invoked.poll(); // one duty cycle: the commands post the READs, the flush rings
        long doorbells = writeCalls() - before;
        reads.forEach(ConformanceSupport::await);
        assertThat(doorbells).as("write(2) calls of the duty cycle that posted %d READs", READS).isEqualTo(1);
    }

    /** How many write(2) calls this thread has made. */
    private static long writeCalls() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
            if (line.startsWith("syscw:")) {
                return Long.parseLong(line.substring("syscw:".length()).trim());
            }
        }
        throw new AssertionError("no syscw in /proc/thread-self/io");
    }
}
