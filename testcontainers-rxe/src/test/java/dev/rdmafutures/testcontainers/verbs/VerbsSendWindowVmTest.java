package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends with a window in flight, each re-posted from its completion callback, into receives the peer re-posts from
 * theirs: the shape of MessageRate's SEND rows, which stalled at 16-33 operations a second on rxe0 while READ and
 * WRITE ran at thousands. A stall is a Send that found no receive: RoCE's receiver NAKs it (RNR) and the sender
 * waits out the timer the NAK names before it retries; the IB CM leaves 0 on every QP it connects, 655.36 ms. No
 * gap between two completions may last 600 ms, as one such wait does (with 64 in flight, two waits in two seconds
 * still left the rate at 2,800 a second), and the rate must reach {@value #FLOOR_PER_WINDOW_SLOT} a second per slot of
 * the window, three times what one such wait per round allows (window / 0.655 s) and a fifth of the slowest rate a
 * loaded two-core host's VM gave without stalls (23 per slot).
 *
 * <p>Two shapes: a stream, where a Send's completion frees its slot (on IB/RoCE the peer's device took it; on iWARP
 * the socket did, so a sender there may outrun receives that are still to be posted, and a device such as siw then
 * ends the connection: the stream runs where Sends wait for receives, {@code AdapterInfo.sendWaitsForPeerReceive}),
 * and requests and responses, where a request's slot is free again when its response arrived, each side posting the
 * receive before the Send it answers or is answered by, which every device must keep without an end, and without a
 * stall where a Send waits for its receive. The rate of each, its longest gap and the device's RNR counters (rxe)
 * go to standard output.
 */
@Tag("verbs-conformance") // bin/test-vm --verbs runs it with the conformance suites
abstract class VerbsSendWindowVmTest extends ConformanceSupport {
    private static final int SIZE = 8;
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MEASURE_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(20);
    static final int FLOOR_PER_WINDOW_SLOT = 5;
    /** No completion for this long is a stall: an RNR wait of the CM's timer is 655 ms without any. */
    private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(600);

    /** The device, {@code rxe0} or {@code siw0}. */
    abstract String device();

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture(device());
    }

    @ParameterizedTest(name = "window {0}")
    @ValueSource(ints = {16, 64})
    void aStreamOfSendsIntoReceivesRepostedFromCallbacksKeepsItsRate(int window) throws Exception {
        assumeTrue(client.adapterInfo().sendWaitsForPeerReceive(), device() + " ends a connection whose Send finds "
                + "no receive, and its Sends complete once its socket took them: a stream needs the receiver's pace");
        Ends ends = connect(window, window, 1, window);
        Receiver receiver = new Receiver(ends.server, ends.serverMemory, null);
        receiver.postAll(window);
        ends.receivesOnDevice();
        Stream stream = new Stream(ends.client, ends.clientMemory);
        long[] rnrBefore = rnrCounters();
        stream.start(window);
        double rate = measure(stream::completed, stream.gaps, stream.failure, receiver.failure);
        report("stream", window, rate, stream.gaps, rnrBefore);
        stream.running = false;
        awaitZero(stream.outstanding, "Sends in flight", stream.failure);
        assertThat(stream.failure.get()).as("a Send failed").isNull();
        assertThat(receiver.failure.get()).as("a receive failed").isNull();
        awaitEqual(receiver.received::get, stream.completed(), "Sends received");
        assertThat(rate).as("Sends a second with %d in flight on %s", window, device())
                .isGreaterThan(FLOOR_PER_WINDOW_SLOT * (double) window);
        assertThat(stream.gaps.longest()).as("the longest time without a Send completing, ns, %d in flight on %s",
                window, device()).isLessThan(STALL_NANOS);
    }

    @ParameterizedTest(name = "window {0}")
    @ValueSource(ints = {16, 64})
    void requestsAndResponsesWithAWindowInFlightKeepTheirRateAndTheConnection(int window) throws Exception {
        // A request's Send may be posted again before the completion of the last one on its slot was polled.
        Ends ends = connect(window, 2 * window, 2 * window, window);
        Receiver server = new Receiver(ends.server, ends.serverMemory, ends.serverMemory);
        server.postAll(window);
        ends.receivesOnDevice();
        Requester requester = new Requester(ends.client, ends.clientMemory, window);
        long[] rnrBefore = rnrCounters();
        requester.start();
        double rate = measure(requester.responses::get, requester.gaps, requester.failure, server.failure);
        report("request/response", window, rate, requester.gaps, rnrBefore);
        requester.running = false;
        awaitZero(requester.outstanding, "requests in flight", requester.failure);
        assertThat(requester.failure.get()).as("a request or response failed").isNull();
        assertThat(server.failure.get()).as("a receive or response failed on the server").isNull();
        // Where a Send that finds no receive waits (IB/RoCE), that wait is a stall; on iWARP it ends the connection,
        // which the failures above catch. (siw0 once went 836 ms without a response with 64 in flight, on a host
        // with a load of 7, and once 61 ms: not a receive's absence, which siw answers with a Terminate.)
        if (client.adapterInfo().sendWaitsForPeerReceive()) {
            assertThat(rate).as("requests answered a second with %d in flight on %s", window, device())
                    .isGreaterThan(FLOOR_PER_WINDOW_SLOT * (double) window);
            assertThat(requester.gaps.longest()).as("the longest time without a response, ns, %d in flight on %s",
                    window, device()).isLessThan(STALL_NANOS);
        }
    }

    /** A connection whose client has {@code clientSends} and the server {@code serverReceives} in its queues. */
    private Ends connect(int window, int clientSends, int serverSends, int serverReceives) {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                .withQueueDepths(clientSends, window).start();
        RdmaConnection s = closeLater(await(await(listener.next()).withQueueDepths(serverSends, serverReceives)
                .accept()));
        RdmaConnection c = closeLater(await(connecting));
        MemoryRegion clientMemory = closeLater(client.register(ByteBuffer.allocateDirect(2 * window * SIZE),
                Access.LOCAL_WRITE, Access.REMOTE_READ));
        MemoryRegion serverMemory = closeLater(server.register(ByteBuffer.allocateDirect(2 * window * SIZE),
                Access.LOCAL_WRITE));
        return new Ends(c, s, clientMemory, serverMemory);
    }

    /** Both ends and their memory: slot i's receive at i x SIZE, its Send (or response) at (window + i) x SIZE. */
    private record Ends(RdmaConnection client, RdmaConnection server, MemoryRegion clientMemory,
                        MemoryRegion serverMemory) {
        /**
         * Returns once the server's receives posted so far are on the device: a READ the server posts after them
         * completes only then (a device such as siw ends a connection whose first Send finds no receive).
         */
        void receivesOnDevice() {
            await(server.read(serverMemory.slice(0, 0), clientMemory.remote(), 0, OperationFlags.NONE));
        }
    }

    /**
     * Warms {@code completed} up, then measures it: operations a second, and {@code gaps} from the measurement's start.
     * A failure ends either phase at once.
     */
    private static double measure(LongSupplier completed, Gaps gaps, AtomicReference<RdmaException> senderFailure,
                                  AtomicReference<RdmaException> receiverFailure) throws InterruptedException {
        runFor(WARM_UP_NANOS, senderFailure, receiverFailure);
        gaps.reset();
        long start = System.nanoTime();
        long before = completed.getAsLong();
        runFor(MEASURE_NANOS, senderFailure, receiverFailure);
        long end = System.nanoTime();
        gaps.until(end);
        return (completed.getAsLong() - before) * 1e9 / (end - start);
    }

    private static void runFor(long nanos, AtomicReference<RdmaException> a, AtomicReference<RdmaException> b)
            throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (System.nanoTime() - deadline < 0 && a.get() == null && b.get() == null) {
            Thread.sleep(10);
        }
    }

    private static void awaitZero(AtomicLong count, String what, AtomicReference<RdmaException> failure)
            throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_NANOS;
        while (count.get() > 0) {
            assertThat(System.nanoTime() - deadline).as("%d %s %d s after the load stopped (first failure: %s)",
                    count.get(), what, TimeUnit.NANOSECONDS.toSeconds(DRAIN_NANOS), failure.get()).isNegative();
            Thread.sleep(5);
        }
    }

    private static void awaitEqual(LongSupplier actual, long expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_NANOS;
        while (actual.getAsLong() != expected) {
            assertThat(System.nanoTime() - deadline).as("%s: %d of %d after %d s", what, actual.getAsLong(), expected,
                    TimeUnit.NANOSECONDS.toSeconds(DRAIN_NANOS)).isNegative();
            Thread.sleep(5);
        }
    }

    /**
     * Prints a line starting {@code SEND-WINDOW}: standard output, not a logger, as the VM's console shows the tests'
     * warnings only.
     */
    private void report(String shape, int window, double rate, Gaps gaps, long[] rnrBefore) {
        long[] rnr = rnrCounters();
        System.out.printf(Locale.ROOT, "SEND-WINDOW | %s | window %d | %s | %.0f/s | longest gap %d ms | RNR NAKs "
                + "sent %d, received %d (rxe counters; -1: none) |%n", shape, window, device(), rate,
                TimeUnit.NANOSECONDS.toMillis(gaps.longest()), rnr[0] - rnrBefore[0], rnr[1] - rnrBefore[1]);
    }

    /**
     * The longest time between two completions since {@link #reset()}, up to {@link #until}: written by the poller
     * that runs the callbacks, read by the test thread.
     */
    private static final class Gaps {
        private volatile long last;
        private volatile long longest;
        private volatile boolean measuring;

        void reset() {
            longest = 0;
            last = System.nanoTime();
            measuring = true;
        }

        /** A completion now. */
        void completion() {
            if (!measuring) {
                return;
            }
            long now = System.nanoTime();
            long previous = last;
            if (now - previous > longest) {
                longest = now - previous;
            }
            last = now;
        }

        /** The measurement ends: the time since the last completion counts too. */
        void until(long end) {
            measuring = false;
            if (end - last > longest) {
                longest = end - last;
            }
        }

        long longest() {
            return longest;
        }
    }

    /** rxe's counts of RNR NAKs sent and received (both ends are on this device), or -1 where there are none. */
    private long[] rnrCounters() {
        Path counters = Path.of("/sys/class/infiniband", device(), "ports/1/hw_counters");
        return new long[] {counter(counters.resolve("send_rnr_err")), counter(counters.resolve("rcvd_rnr_err"))};
    }

    private static long counter(Path file) {
        try {
            return Files.isReadable(file) ? Long.parseLong(Files.readString(file).trim()) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * A post the connection refused, as the failure its callback would have reported: the callback forms return the
     * refusal and never call back for it, so a test that re-posts from its callbacks records it itself.
     */
    private static RdmaException refused(Status status, String post) {
        return new RdmaException(status, post + " was refused");
    }

    /** Keeps a window of Sends in flight, each re-posted from its completion while running. */
    private static final class Stream implements CompletionCallback {
        final AtomicLong outstanding = new AtomicLong();
        final Gaps gaps = new Gaps();
        final AtomicReference<RdmaException> failure = new AtomicReference<>();
        private final AtomicLong done = new AtomicLong();
        private final RdmaConnection connection;
        private final MemoryRegion memory;
        private int window;
        volatile boolean running;

        Stream(RdmaConnection connection, MemoryRegion memory) {
            this.connection = connection;
            this.memory = memory;
        }

        void start(int slots) {
            window = slots;
            running = true;
            outstanding.set(slots);
            for (int slot = 0; slot < slots; slot++) {
                assertThat(post(slot)).as("posting the Send of slot %d", slot).isEqualTo(Status.SUCCESS);
            }
        }

        long completed() {
            return done.get();
        }

        /** Posts the slot's Send: {@link Status#SUCCESS}, or the refusal, for which no callback comes. */
        private Status post(long slot) {
            return connection.send(memory.slice((window + (int) slot) * SIZE, SIZE), OperationFlags.NONE, this,
                    slot);
        }

        @Override
        public void completed(long slot, int bytes) {
            done.incrementAndGet();
            gaps.completion();
            if (running) {
                Status status = post(slot);
                if (status != Status.SUCCESS) { // no callback comes for a refused post: its slot ends here
                    failed(slot, refused(status, "re-posting the Send of slot " + slot));
                }
            } else {
                outstanding.decrementAndGet();
            }
        }

        @Override
        public void failed(long slot, RdmaException error) {
            failure.compareAndSet(null, error);
            outstanding.decrementAndGet();
        }
    }

    /**
     * The server: a receive per slot, each re-posted from its completion; with {@code respondFrom}, a response Send
     * of the slot follows each re-posted receive.
     */
    private static final class Receiver implements CompletionCallback {
        final AtomicLong received = new AtomicLong();
        final AtomicReference<RdmaException> failure = new AtomicReference<>();
        private final RdmaConnection connection;
        private final MemoryRegion memory;
        private final MemoryRegion respondFrom;
        private int window;

        Receiver(RdmaConnection connection, MemoryRegion memory, MemoryRegion respondFrom) {
            this.connection = connection;
            this.memory = memory;
            this.respondFrom = respondFrom;
        }

        void postAll(int slots) {
            window = slots;
            for (int slot = 0; slot < slots; slot++) {
                assertThat(receive(slot)).as("posting the receive of slot %d", slot).isEqualTo(Status.SUCCESS);
            }
        }

        /** Posts the slot's receive: {@link Status#SUCCESS}, or the refusal, for which no callback comes. */
        private Status receive(long slot) {
            return connection.receive(memory.slice((int) slot * SIZE, SIZE), this, slot);
        }

        @Override
        public void completed(long context, int bytes) {
            if (context < 0) {
                return; // a response went out
            }
            received.incrementAndGet();
            Status status = receive(context);
            if (status != Status.SUCCESS) { // no callback comes for a refused post: it fails the server here
                failed(context, refused(status, "re-posting the receive of slot " + context));
            }
            if (respondFrom != null) {
                status = connection.send(respondFrom.slice((window + (int) context) * SIZE, SIZE),
                        OperationFlags.NONE, this, -1 - context);
                if (status != Status.SUCCESS) {
                    failed(-1 - context, refused(status, "the response Send of slot " + context));
                }
            }
        }

        @Override
        public void failed(long context, RdmaException error) {
            if (error.status() != Status.CANCELED) { // CANCELED: the connection closed after the test
                failure.compareAndSet(null, error);
            }
        }
    }

    /**
     * The client of requests and responses: per slot, the response's receive, then the request's Send; the next
     * request of a slot when its response arrived.
     */
    private static final class Requester implements CompletionCallback {
        final AtomicLong responses = new AtomicLong();
        final AtomicLong outstanding = new AtomicLong();
        final Gaps gaps = new Gaps();
        final AtomicReference<RdmaException> failure = new AtomicReference<>();
        private final RdmaConnection connection;
        private final MemoryRegion memory;
        private final int window;
        volatile boolean running;

        Requester(RdmaConnection connection, MemoryRegion memory, int window) {
            this.connection = connection;
            this.memory = memory;
            this.window = window;
        }

        void start() {
            running = true;
            outstanding.set(window);
            for (long slot = 0; slot < window; slot++) {
                assertThat(request(slot)).as("posting request %d", slot).isNull();
            }
        }

        /**
         * Posts the slot's receive for its response, then its request's Send: null, or the refusal of the first post
         * refused (no callback comes for it; a Send refused leaves the receive posted, to be flushed at the close).
         */
        private RdmaException request(long slot) {
            Status status = connection.receive(memory.slice((int) slot * SIZE, SIZE), this, slot);
            if (status != Status.SUCCESS) {
                return refused(status, "the receive for the response of slot " + slot);
            }
            status = connection.send(memory.slice((window + (int) slot) * SIZE, SIZE), OperationFlags.NONE, this,
                    -1 - slot);
            return status == Status.SUCCESS ? null : refused(status, "the request Send of slot " + slot);
        }

        @Override
        public void completed(long context, int bytes) {
            if (context < 0) {
                return; // the request went out; its slot is free once the response is here
            }
            responses.incrementAndGet();
            gaps.completion();
            if (running) {
                RdmaException refusal = request(context);
                if (refusal != null) { // no response comes for a refused request: its slot ends here
                    failed(context, refusal);
                }
            } else {
                outstanding.decrementAndGet();
            }
        }

        @Override
        public void failed(long context, RdmaException error) {
            failure.compareAndSet(null, error);
            if (context >= 0) {
                outstanding.decrementAndGet();
            }
        }
    }
}
