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
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * rxe0's port goes down (its netdev is set down inside the VM) while reads, writes and sends with their receives are
 * posted on one connection, both of whose ends are on rxe0: the device's IBV_EVENT_PORT_ERR ends both ends with
 * DEVICE_ERROR, and every operation settles within {@link #DEADLINE} of {@code ip} returning, done before the port
 * went down or failed with a typed status. The link comes back up afterwards. Under rxe's load the VM's kernel
 * finishes {@code ip link set down} only as the burst drains (tens of seconds), so how much of the burst is still in
 * flight varies; the receives no send matches always are.
 */
@Tag("verbs-conformance") // bin/test-vm --verbs runs it with the conformance suites
@InRdmaVm(devices = "rxe")
class VerbsPortDownVmTest extends ConformanceSupport {
    private static final String DEVICE = "rxe0";
    /**
     * From the port going down ({@code ip} returning: the kernel raised IBV_EVENT_PORT_ERR before that) to every
     * future settled and both connections reported.
     */
    private static final Duration DEADLINE = Duration.ofSeconds(15);
    /** Enough that the traffic lasts seconds in the VM, whatever else the host runs. */
    private static final int SIZE = 1024 * 1024;
    private static final int OPERATIONS = 96;
    /**
     * Receives per end that no send matches. The kernel may take the port down only once the burst has drained (in
     * the VM, rxe's work under load holds {@code ip link set down} back for up to tens of seconds), so these are what
     * is certainly in flight when it goes down.
     */
    private static final int UNMATCHED_RECEIVES = 4;
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
                .withQueueDepths(3 * OPERATIONS, OPERATIONS + UNMATCHED_RECEIVES).start();
        ConnectionRequest request = await(listener.next());
        RdmaConnection serverEnd = closeLater(await(request
                .withQueueDepths(2 * OPERATIONS, OPERATIONS + UNMATCHED_RECEIVES)
                .onDisconnect(serverCallback::complete).accept()));
        RdmaConnection clientEnd = closeLater(await(connecting));
        MemoryRegion clientMemory = closeLater(client.register(ByteBuffer.allocateDirect(2 * SIZE), ALL));
        MemoryRegion serverMemory = closeLater(server.register(ByteBuffer.allocateDirect(2 * SIZE), ALL));

        // Processes start before the traffic: starting one in the VM takes seconds, longer than the traffic lasts.
        String netdev = netdevOf(DEVICE);
        String defaultRoute = run("ip", "-4", "route", "show", "default").trim();
        Process ip = new ProcessBuilder("ip", "-batch", "-").redirectErrorStream(true).start();
        List<CompletableFuture<Completion>> operations = new ArrayList<>();
        List<String> kinds = new ArrayList<>(); // what each operation is, to name those that do not settle
        for (int i = 0; i < OPERATIONS + UNMATCHED_RECEIVES; i++) {
            post(operations, kinds, "server receive", serverEnd.receive(serverMemory.slice(SIZE, SIZE)));
            post(operations, kinds, "client receive", clientEnd.receive(clientMemory.slice(SIZE, SIZE)));
        }
        for (int i = 0; i < OPERATIONS; i++) {
            post(operations, kinds, "client read",
                    clientEnd.read(clientMemory.slice(0, SIZE), serverMemory.remote(), 0, OperationFlags.NONE));
            post(operations, kinds, "client write",
                    clientEnd.write(clientMemory.slice(0, SIZE), serverMemory.remote(), 0, OperationFlags.NONE));
            post(operations, kinds, "client send", clientEnd.send(clientMemory.slice(0, SIZE), OperationFlags.NONE));
            post(operations, kinds, "server write",
                    serverEnd.write(serverMemory.slice(0, SIZE), clientMemory.remote(), 0, OperationFlags.NONE));
            post(operations, kinds, "server send", serverEnd.send(serverMemory.slice(0, SIZE), OperationFlags.NONE));
        }
        long pending = operations.stream().filter(f -> !f.isDone()).count();
        long downAt = System.nanoTime();
        // When each step happened after ip was told to take the port down, for the report and a failure's message.
        Map<String, Long> timeline = new ConcurrentSkipListMap<>();
        clientEnd.disconnected().whenComplete((reason, e) -> timeline.put("client end ended", since(downAt)));
        serverEnd.disconnected().whenComplete((reason, e) -> timeline.put("server end ended", since(downAt)));
        Duration settledAfter;
        try {
            try (Writer commands = new OutputStreamWriter(ip.getOutputStream(), StandardCharsets.US_ASCII)) {
                commands.write("link set " + netdev + " down\n"); // ip runs it as soon as it reads the line
            }
            String output = new String(ip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ip.waitFor(30, TimeUnit.SECONDS) && ip.exitValue() == 0).as("ip link set down: %s", output)
                    .isTrue();
            timeline.put("ip returned", since(downAt));
            long portDownAt = System.nanoTime();

            CompletableFuture<Void> settled = CompletableFuture.allOf(operations.stream()
                    .map(f -> f.handle((done, error) -> null)).toArray(CompletableFuture[]::new));
            try {
                settled.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("not settled " + DEADLINE.toSeconds() + " s after the port went down: "
                        + unsettled(operations, kinds) + "; client end " + state(clientEnd) + ", server end "
                        + state(serverEnd) + "; ms after ip was told: " + timeline, e);
            }
            settledAfter = Duration.ofNanos(System.nanoTime() - portDownAt);
            assertThat(clientEnd.disconnected().get(remaining(portDownAt), TimeUnit.MILLISECONDS))
                    .isEqualTo(DisconnectReason.DEVICE_ERROR);
            assertThat(serverEnd.disconnected().get(remaining(portDownAt), TimeUnit.MILLISECONDS))
                    .isEqualTo(DisconnectReason.DEVICE_ERROR);
            assertThat(serverCallback.get(remaining(portDownAt), TimeUnit.MILLISECONDS))
                    .isEqualTo(DisconnectReason.DEVICE_ERROR);
        } finally {
            restore(netdev, defaultRoute);
        }
        assertThat(pending).as("operations in flight when the port went down").isPositive();
        Map<Status, Integer> failures = new EnumMap<>(Status.class);
        Map<String, Integer> failedKinds = new TreeMap<>();
        for (int i = 0; i < operations.size(); i++) {
            if (operations.get(i).isCompletedExceptionally()) {
                Throwable error = operations.get(i).handle((done, e) -> e).join();
                assertThat(error).isInstanceOf(RdmaException.class);
                failures.merge(((RdmaException) error).status(), 1, Integer::sum);
                failedKinds.merge(kinds.get(i), 1, Integer::sum);
            }
        }
        System.out.printf("%s down with %d of %d operations in flight: failed %s %s, settled %d ms after ip returned"
                + " (ms after ip was told: %s)%n",
                DEVICE, pending, operations.size(), failures, failedKinds, settledAfter.toMillis(), timeline);
        assertThat(failedKinds).as("the unmatched receives, in flight on both ends whenever the port went down")
                .hasEntrySatisfying("client receive", n -> assertThat(n).isGreaterThanOrEqualTo(UNMATCHED_RECEIVES))
                .hasEntrySatisfying("server receive", n -> assertThat(n).isGreaterThanOrEqualTo(UNMATCHED_RECEIVES));
        assertThat(failures.keySet()).as("operations the port took down").isNotEmpty().allMatch(PORT_DOWN::contains);
        assertThat(failures).as("some fail with the port's own status").containsKey(Status.NETWORK_UNREACHABLE);
        assertThat(clientEnd.isConnected()).isFalse();
        // Nothing hangs: both runtimes close at once, the device still down for them.
        long closing = System.nanoTime();
        client.close();
        server.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(DEADLINE);
    }

    private static void post(List<CompletableFuture<Completion>> operations, List<String> kinds, String kind,
                             CompletableFuture<Completion> operation) {
        operations.add(operation);
        kinds.add(kind);
    }

    /** How many operations of each kind are still pending. */
    private static Map<String, Integer> unsettled(List<CompletableFuture<Completion>> operations, List<String> kinds) {
        Map<String, Integer> pending = new TreeMap<>();
        for (int i = 0; i < operations.size(); i++) {
            if (!operations.get(i).isDone()) {
                pending.merge(kinds.get(i), 1, Integer::sum);
            }
        }
        return pending;
    }

    private static String state(RdmaConnection end) {
        return end.isConnected() ? "connected"
                : "disconnected (" + end.disconnected().getNow(null) + ")";
    }

    private static long since(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
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
