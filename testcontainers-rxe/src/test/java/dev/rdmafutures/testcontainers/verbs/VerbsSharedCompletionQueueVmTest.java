package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A loop's connections share its CQs: this process holds a few CQs however many connections it has (the kernel's
 * resource list, {@code rdma resource show cq}, counts them), and every completion still reaches its own connection
 * while connections end with requests in flight and new ones take their place, possibly on reused QP numbers. And
 * one process holds a hundred connections whose queues take a page each, which siw's mapping keys once stopped at 24.
 */
@Tag("verbs-conformance") // bin/test-vm --verbs runs it with the conformance suites
abstract class VerbsSharedCompletionQueueVmTest extends ConformanceSupport {
    private static final int CONNECTIONS = 32;
    private static final int SLOT = 64;
    private static final Pattern THREAD = Pattern.compile("\"pid\":(\\d+)");

    /** The device, {@code rxe0} or {@code siw0}. */
    abstract String device();

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture(device());
    }

    @Test
    void connectionsShareTheirLoopsCompletionQueuesAndEachGetsItsOwnCompletions() throws Exception {
        RdmaListener listener = listen();
        // The server's memory: slot i holds connection i's text, so a READ that completed another's future shows.
        MemoryRegion serverMemory = closeLater(server.register(ByteBuffer.allocateDirect(4 * CONNECTIONS * SLOT),
                Access.LOCAL_WRITE, Access.REMOTE_READ));
        MemoryRegion clientMemory = closeLater(client.register(ByteBuffer.allocateDirect(4 * CONNECTIONS * SLOT),
                Access.LOCAL_WRITE));
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            pairs.add(connectPair(listener));
        }
        int round = 0;
        readEachOwnSlot(pairs, serverMemory, clientMemory, round++);
        // Each new CQ is twice the largest: 32 queue pairs of default depths take 4 CQs on rxe and 6 on siw (where
        // a READ may take 8 work requests) per side. One per connection would be 64.
        assertThat(completionQueuesOfThisProcess()).isBetween(2, 16);

        for (int churn = 0; churn < 3; churn++) {
            // Half end with READs in flight; as many new ones take their places.
            List<CompletableFuture<Completion>> inFlight = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i += 2) {
                for (int k = 0; k < 8; k++) {
                    inFlight.add(pairs.get(i).client().read(clientMemory.slice(slot(i + 2 * CONNECTIONS), SLOT),
                            serverMemory.remote(), slot(i), OperationFlags.NONE));
                }
                pairs.get(i).client().close();
                pairs.get(i).server().close();
                pairs.set(i, connectPair(listener));
            }
            for (CompletableFuture<Completion> read : inFlight) {
                read.handle((c, e) -> null).get(WAIT.toMillis(), TimeUnit.MILLISECONDS); // done or failed, settled
            }
            readEachOwnSlot(pairs, serverMemory, clientMemory, round++);
        }
        assertThat(completionQueuesOfThisProcess()).isBetween(2, 16);
    }

    @Test
    void oneProcessHoldsOneHundredConnectionsWithOnePageQueues() {
        // On siw, with a CQ per connection and queues of depth 1 (a page each), the 25th pair's QP was the one whose
        // queue landed on page 144, which libsiw takes for a failed mapping (SiwMappingGuard).
        RdmaListener listener = listen();
        listener.onRequest(r -> r.withQueueDepths(1, 1).withMaxSge(1, 1).accept()); // the server's ends close with its runtime
        for (int i = 0; i < 100; i++) {
            closeLater(await(client.connector().connect(listener.localAddress()).withQueueDepths(1, 1)
                    .withMaxSge(1, 1).start()));
        }
    }

    private static int slot(int connection) {
        return connection * SLOT;
    }

    /** Every connection READs its own slot, changed for the round, 16 times at once; each must see its own text. */
    private void readEachOwnSlot(List<Pair> pairs, MemoryRegion serverMemory, MemoryRegion clientMemory, int round) {
        for (int i = 0; i < pairs.size(); i++) {
            byte[] text = String.format("connection %02d, round %d", i, round).getBytes(StandardCharsets.US_ASCII);
            serverMemory.buffer().put(slot(i), new byte[SLOT]).put(slot(i), text);
        }
        List<CompletableFuture<Completion>> reads = new ArrayList<>();
        for (int k = 0; k < 16; k++) {
            for (int i = 0; i < pairs.size(); i++) {
                reads.add(pairs.get(i).client().read(clientMemory.slice(slot(i), SLOT), serverMemory.remote(), slot(i),
                        OperationFlags.NONE));
            }
        }
        reads.forEach(ConformanceSupport::await);
        for (int i = 0; i < pairs.size(); i++) {
            byte[] got = new byte[SLOT];
            clientMemory.buffer().get(slot(i), got);
            assertThat(new String(got, StandardCharsets.US_ASCII).trim())
                    .isEqualTo(String.format("connection %02d, round %d", i, round));
        }
    }

    /** The CQs the kernel lists for this process, on this test's device (it names the thread that created each). */
    private int completionQueuesOfThisProcess() throws IOException, InterruptedException {
        Process rdma = new ProcessBuilder("rdma", "-j", "resource", "show", "cq", "dev", device())
                .redirectErrorStream(true).start();
        String out = new String(rdma.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(rdma.waitFor()).as(out).isZero();
        int count = 0;
        Matcher thread = THREAD.matcher(out);
        while (thread.find()) {
            if (Files.exists(Path.of("/proc/self/task", thread.group(1)))) {
                count++;
            }
        }
        return count;
    }
}
