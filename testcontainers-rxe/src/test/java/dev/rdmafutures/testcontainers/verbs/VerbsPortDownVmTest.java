package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * rxe0's port goes down (its netdev is set down inside the VM) while reads, writes and sends with their receives are
 * in flight on one connection, both of whose ends are on rxe0: the device's IBV_EVENT_PORT_ERR ends both ends with
 * DEVICE_ERROR, and every operation settles within {@link #DEADLINE}, done before the port went down or failed with a
 * typed status. The link comes back up afterwards.
 */
@Tag("verbs-conformance") // bin/test-vm --verbs runs it with the conformance suites
@InRdmaVm(devices = "rxe")
class VerbsPortDownVmTest extends ConformanceSupport {
    private static final String DEVICE = "rxe0";
    /** From the port going down to every future settled and both connections reported. */
    private static final Duration DEADLINE = Duration.ofSeconds(15);
    /** Enough that the traffic lasts seconds in the VM, whatever else the host runs. */
    private static final int SIZE = 1024 * 1024;
    private static final int OPERATIONS = 96;
    /** What an operation the port took down may fail with: the port's status, or flushed. */
    private static final Set<Status> PORT_DOWN = EnumSet.of(Status.NETWORK_UNREACHABLE, Status.CANCELED);
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture(DEVICE);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void thePortGoingDownUnderTrafficEndsBothEndsAndSettlesEveryOperation() throws Exception {
        RdmaListener listener = listen();
        CompletableFuture<DisconnectReason> serverCallback = new CompletableFuture<>();
        // Queues deep enough for everything posted below, so every operation is in flight, none refused.
        CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                .withQueueDepths(3 * OPERATIONS, OPERATIONS).start();
        ConnectionRequest request = await(listener.next());
        RdmaConnection serverEnd = closeLater(await(request.withQueueDepths(2 * OPERATIONS, OPERATIONS)
                .onDisconnect(serverCallback::complete).accept()));
        RdmaConnection clientEnd = closeLater(await(connecting));
        MemoryRegion clientMemory = closeLater(client.register(ByteBuffer.allocateDirect(2 * SIZE), ALL));
        MemoryRegion serverMemory = closeLater(server.register(ByteBuffer.allocateDirect(2 * SIZE), ALL));

        // Processes start before the traffic: starting one in the VM takes seconds, longer than the traffic lasts.
        String netdev = netdevOf(DEVICE);
        String defaultRoute = run("ip", "-4", "route", "show", "default").trim();
        Process ip = new ProcessBuilder("ip", "-batch", "-").redirectErrorStream(true).start();
        List<CompletableFuture<Completion>> operations = new ArrayList<>();
        for (int i = 0; i < OPERATIONS; i++) {
            operations.add(serverEnd.receive(serverMemory.slice(SIZE, SIZE)));
            operations.add(clientEnd.receive(clientMemory.slice(SIZE, SIZE)));
        }
        for (int i = 0; i < OPERATIONS; i++) {
            operations.add(clientEnd.read(clientMemory.slice(0, SIZE), serverMemory.remote(), 0, OperationFlags.NONE));
            operations.add(clientEnd.write(clientMemory.slice(0, SIZE), serverMemory.remote(), 0, OperationFlags.NONE));
            operations.add(clientEnd.send(clientMemory.slice(0, SIZE), OperationFlags.NONE));
            operations.add(serverEnd.write(serverMemory.slice(0, SIZE), clientMemory.remote(), 0, OperationFlags.NONE));
            operations.add(serverEnd.send(serverMemory.slice(0, SIZE), OperationFlags.NONE));
        }
        long pending = operations.stream().filter(f -> !f.isDone()).count();
        long downAt = System.nanoTime();
        Duration settledAfter;
        try {
            try (Writer commands = new OutputStreamWriter(ip.getOutputStream(), StandardCharsets.US_ASCII)) {
                commands.write("link set " + netdev + " down\n"); // ip runs it as soon as it reads the line
            }
            String output = new String(ip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ip.waitFor(30, TimeUnit.SECONDS) && ip.exitValue() == 0).as("ip link set down: %s", output)
                    .isTrue();

            CompletableFuture<Void> settled = CompletableFuture.allOf(operations.stream()
                    .map(f -> f.handle((done, error) -> null)).toArray(CompletableFuture[]::new));
            settled.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            settledAfter = Duration.ofNanos(System.nanoTime() - downAt);
            assertThat(clientEnd.disconnected().get(remaining(downAt), TimeUnit.MILLISECONDS))
                    .isEqualTo(DisconnectReason.DEVICE_ERROR);
            assertThat(serverEnd.disconnected().get(remaining(downAt), TimeUnit.MILLISECONDS))
                    .isEqualTo(DisconnectReason.DEVICE_ERROR);
            assertThat(serverCallback.get(remaining(downAt), TimeUnit.MILLISECONDS))
                    .isEqualTo(DisconnectReason.DEVICE_ERROR);
        } finally {
            restore(netdev, defaultRoute);
        }
        assertThat(pending).as("operations in flight when the port went down").isPositive();
        Map<Status, Integer> failures = new EnumMap<>(Status.class);
        for (CompletableFuture<Completion> operation : operations) {
            if (operation.isCompletedExceptionally()) {
                Throwable error = operation.handle((done, e) -> e).join();
                assertThat(error).isInstanceOf(RdmaException.class);
                failures.merge(((RdmaException) error).status(), 1, Integer::sum);
            }
        }
        System.out.printf("%s down with %d of %d operations in flight: failed %s, settled %d ms after%n", DEVICE,
                pending, operations.size(), failures, settledAfter.toMillis());
        assertThat(failures.keySet()).as("operations the port took down").isNotEmpty().allMatch(PORT_DOWN::contains);
        assertThat(failures).as("some fail with the port's own status").containsKey(Status.NETWORK_UNREACHABLE);
        assertThat(clientEnd.isConnected()).isFalse();
        // Nothing hangs: both runtimes close at once, the device still down for them.
        long closing = System.nanoTime();
        client.close();
        server.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(DEADLINE);
    }

    private static long remaining(long since) {
        return Math.max(1, DEADLINE.toMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
    }

    /** The netdev {@code device} runs on, as {@code rdma link} reports it. */
    private static String netdevOf(String device) throws IOException, InterruptedException {
        Matcher m = Pattern.compile("netdev (\\S+)").matcher(run("rdma", "link", "show", device + "/1"));
        assertThat(m.find()).as("rdma link names the netdev of %s", device).isTrue();
        return m.group(1);
    }

    /** Brings the link back (with the default route the kernel dropped) and waits until the port is ACTIVE. */
    private static void restore(String netdev, String defaultRoute) throws IOException, InterruptedException {
        run("ip", "link", "set", netdev, "up");
        if (!defaultRoute.isEmpty()) {
            List<String> command = new ArrayList<>(List.of("ip", "route", "replace"));
            command.addAll(List.of(defaultRoute.split("\\s+")));
            run(command.toArray(String[]::new));
        }
        Path state = Path.of("/sys/class/infiniband", DEVICE, "ports/1/state");
        long until = System.nanoTime() + DEADLINE.toNanos();
        while (!Files.readString(state).contains("ACTIVE") && System.nanoTime() < until) {
            Thread.sleep(100);
        }
        assertThat(Files.readString(state)).as("%s port state after the link came back", DEVICE).contains("ACTIVE");
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}
