package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.ScatterGatherList;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soak (issue 15, item 5): connections between two runtimes, each running a chain of operations for a bounded
 * time: a READ, a WRITE read back, a SEND into the peer's receive; sizes log-uniform from 1 B to 1 MiB, the local side
 * a scatter-gather list of up to four segments where the adapter has them, half posted with futures and half with
 * callbacks. Every byte is checked, every completion counted once; heap (after GC) and direct memory may not grow
 * after the warm-up; every thread and file descriptor the runtimes opened is gone when they are closed.
 *
 * <p>Tagged {@code soak}: {@code bin/faults} runs it ({@code rdmafutures.soak.seconds}: 60 by default, 1800 with
 * {@code --full}; {@code rdmafutures.soak.connections}: 256 by default), {@code bin/test} does not.
 */
@Tag("soak")
public abstract class AbstractSoakTest {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractSoakTest.class);
    private static final int CONNECTIONS = Integer.getInteger("rdmafutures.soak.connections", 256);
    private static final long SECONDS = Long.getLong("rdmafutures.soak.seconds", 60);
    private static final int MAX_SIZE = 1 << 20;
    /** One operation's local bytes: the largest size plus the gaps left between its segments. */
    private static final int AREA = MAX_SIZE + 64;
    private static final int MOST_SEGMENTS = 4;
    private static final long MIB = 1 << 20;
    /** Heap after GC may grow this much from the end of the warm-up to the end (noise of a live JVM, not a leak). */
    private static final long HEAP_SLACK = 16 * MIB;
    private static final long DIRECT_SLACK = MIB;
    /** The bytes every operation moves are a slice of these. */
    private static final byte[] PATTERN = pattern();

    /** The provider under test. */
    protected abstract ProviderFixture fixture();

    /** How bin/faults' table names the provider (and device). */
    protected abstract String providerLabel();

    /** Connections: {@code rdmafutures.soak.connections}, 256 by default; each holds 3 MiB of registered memory. */
    protected int connections() {
        return CONNECTIONS;
    }

    /** How long the operations run: {@code rdmafutures.soak.seconds}, 60 by default. */
    protected Duration duration() {
        return Duration.ofSeconds(SECONDS);
    }

    private final LongAdder operations = new LongAdder();
    private final LongAdder bytesChecked = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final AtomicInteger[] kinds = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};

    @Test
    void connectionsRunMixedOperationsWithEveryByteCheckedAndNothingLeaks() throws Exception {
        final int connections = connections();
        final Duration duration = duration();
        warmUpClassesAndNatives();
        ProcessResources before = ProcessResources.now();
        RdmaRuntime server = fixture().runtimeBuilder().pollerThreads(2).threadNamePrefix("soak-server").build();
        RdmaRuntime client = fixture().runtimeBuilder().pollerThreads(2).threadNamePrefix("soak-client").build();
        ExecutorService workers = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "soak-worker");
            t.setDaemon(true);
            return t;
        });
        MemorySamples memory = new MemorySamples();
        List<Lane> lanes = new ArrayList<>();
        try {
            MemoryRegion pattern = server.register(ByteBuffer.allocateDirect(MAX_SIZE).put(0, PATTERN, 0, MAX_SIZE),
                    Access.REMOTE_READ);
            int segments = Math.min(MOST_SEGMENTS, Math.min(client.adapterInfo().maxInitiatorSge(),
                    server.adapterInfo().maxInitiatorSge()));
            RdmaListener listener = server.listen(new InetSocketAddress(fixture().deviceAddress(), 0));
            long setupStart = System.nanoTime();
            for (int i = 0; i < connections; i++) {
                lanes.add(connect(i, client, server, listener, pattern, segments));
            }
            Duration setup = Duration.ofNanos(System.nanoTime() - setupStart);

            long start = System.nanoTime();
            long end = start + duration.toNanos();
            long warmedUp = start + duration.toNanos() / 4;
            lanes.forEach(lane -> lane.run(end, workers));
            memory.sampleUntil(end, warmedUp);
            List<CompletableFuture<Void>> finished = lanes.stream().map(lane -> lane.finished).toList();
            try {
                CompletableFuture.allOf(finished.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("operations still pending 60 s after the soak ended: " + lanes.stream()
                        .filter(lane -> !lane.finished.isDone()).map(lane -> lane.index + ": " + lane.current)
                        .limit(10).toList());
            }
            memory.sampleAtEnd();
            long posted = operations.sum();
            assertThat(duplicates.sum()).as("completions reported twice").isZero();
            assertThat(lanes.stream().mapToLong(lane -> lane.completed.get()).sum()).as("completions counted")
                    .isEqualTo(posted);
            assertThat(server.pollerErrorCount() + client.pollerErrorCount()).as("poller errors").isZero();
            assertThat(memory.heapGrowth()).as("heap growth after GC since the warm-up, bytes")
                    .isLessThanOrEqualTo(HEAP_SLACK);
            assertThat(memory.directGrowth()).as("direct memory growth since the warm-up, bytes")
                    .isLessThanOrEqualTo(DIRECT_SLACK);

            for (Lane lane : lanes) {
                lane.close();
            }
            listener.close();
            pattern.close();
            server.close();
            client.close();
            workers.shutdown();
            assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            ProcessResources after = ProcessResources.settledTo(before, Duration.ofSeconds(10));
            assertThat(after.newThreads(before)).as("threads left after close").isEmpty();
            assertThat(after.newDescriptors(before)).as("file descriptors left after close").isEmpty();

            String mix = "READ " + kinds[0] + ", WRITE+READ back " + kinds[1] + ", SEND " + kinds[2];
            LOG.info("soak on {}: {} connections set up in {} ms, {} s, {} operations ({}), {} MiB checked, {}",
                    providerLabel(), connections, setup.toMillis(), duration.toSeconds(), posted, mix,
                    bytesChecked.sum() / MIB, memory);
            FaultRows.row("soak: " + connections + " connections, 2 runtimes × 2 pollers, READ / WRITE / SEND of "
                            + "1 B–1 MiB, up to " + segments + " segments, " + duration.toSeconds() + " s",
                    providerLabel(), connections, posted + " completed once each (" + mix + "), 0 failed, 0 lost, "
                            + "0 duplicated", "no fault injected", "yes, for the whole run",
                    bytesChecked.sum() / MIB + " MiB checked; " + memory + "; threads and descriptors back to "
                            + "their count before");
        } finally {
            workers.shutdownNow();
            lanes.forEach(Lane::close);
            server.close();
            client.close();
        }
    }

    /** Loads the classes and native code a first connection needs, so the baseline counts what they keep open. */
    private void warmUpClassesAndNatives() throws Exception {
        try (RdmaRuntime a = fixture().runtimeBuilder().build(); RdmaRuntime b = fixture().runtimeBuilder().build()) {
            RdmaListener listener = a.listen(new InetSocketAddress(fixture().deviceAddress(), 0));
            CompletableFuture<RdmaConnection> c = b.connector().connect(listener.localAddress()).start();
            RdmaConnection s = listener.next().thenCompose(ConnectionRequest::accept).get(20, TimeUnit.SECONDS);
            c.get(20, TimeUnit.SECONDS).disconnect().get(20, TimeUnit.SECONDS);
            s.disconnected().get(20, TimeUnit.SECONDS);
        }
    }

    private Lane connect(int index, RdmaRuntime client, RdmaRuntime server, RdmaListener listener,
                         MemoryRegion pattern, int segments) throws Exception {
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withMaxSge(segments, 1).start();
        ConnectionRequest request = listener.next().get(20, TimeUnit.SECONDS);
        RdmaConnection s = request.withMaxSge(segments, 1).accept().get(20, TimeUnit.SECONDS);
        Lane lane = new Lane(index, c.get(20, TimeUnit.SECONDS), s, pattern, segments);
        lane.local = client.register(ByteBuffer.allocateDirect(2 * AREA), Access.LOCAL_WRITE, Access.REMOTE_READ);
        // One operation at a time: the WRITE target doubles as the inbox SENDs land in.
        lane.target = server.register(ByteBuffer.allocateDirect(MAX_SIZE), Access.LOCAL_WRITE, Access.REMOTE_READ,
                Access.REMOTE_WRITE);
        lane.postReceive().get(20, TimeUnit.SECONDS);
        return lane;
    }

    private static byte[] pattern() {
        byte[] bytes = new byte[2 * MAX_SIZE];
        new Random(15).nextBytes(bytes);
        return bytes;
    }

    /** One connection and its chain of operations, one operation in flight at a time. */
    private final class Lane {
        final int index;
        final RdmaConnection client;
        final RdmaConnection server;
        final MemoryRegion pattern;
        final int segments;
        final Random random;
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        MemoryRegion local;
        MemoryRegion target;
        CompletableFuture<Completion> received;
        volatile String current = "nothing posted";
        final AtomicLong completed = new AtomicLong();
        /** The id of the operation in flight, -1 between operations. */
        private final AtomicLong inFlight = new AtomicLong(-1);
        private long nextId;

        Lane(int index, RdmaConnection client, RdmaConnection server, MemoryRegion pattern, int segments) {
            this.index = index;
            this.client = client;
            this.server = server;
            this.pattern = pattern;
            this.segments = segments;
            this.random = new Random(index);
        }

        void run(long end, ExecutorService workers) {
            if (System.nanoTime() - end >= 0) {
                finished.complete(null);
                return;
            }
            CompletableFuture<Void> operation;
            try {
                operation = next();
            } catch (RuntimeException | AssertionError e) {
                finished.completeExceptionally(e);
                return;
            }
            operation.whenCompleteAsync((ignored, error) -> {
                if (error != null) {
                    finished.completeExceptionally(new AssertionError("connection " + index + ", " + current, error));
                } else {
                    run(end, workers);
                }
            }, workers);
        }

        private CompletableFuture<Void> next() {
            int size = size();
            int kind = random.nextInt(3);
            kinds[kind].incrementAndGet();
            return switch (kind) {
                case 0 -> read(size);
                case 1 -> writeAndReadBack(size);
                default -> send(size);
            };
        }

        /** Log-uniform over 1 B .. 1 MiB: most operations small, every size class reached. */
        private int size() {
            return (int) Math.min(MAX_SIZE, Math.max(1, Math.exp(random.nextDouble() * Math.log(MAX_SIZE + 1.0))));
        }

        private CompletableFuture<Void> read(int size) {
            int from = random.nextInt(MAX_SIZE - size + 1);
            ScatterGatherList into = scatter(0, size);
            current = "READ " + size + " B from " + from + " into " + into;
            return post(id -> client.read(into, pattern.remote(), from, OperationFlags.NONE),
                    (callback, id) -> client.read(into, pattern.remote(), from, OperationFlags.NONE, callback, id))
                    .thenAccept(bytes -> check(bytes, size, into, from));
        }

        private CompletableFuture<Void> writeAndReadBack(int size) {
            int source = random.nextInt(PATTERN.length - size + 1);
            int at = random.nextInt(MAX_SIZE - size + 1);
            ScatterGatherList from = scatter(0, size);
            fill(from, source);
            ScatterGatherList back = scatter(AREA, size);
            current = "WRITE " + size + " B at " + at + " from " + from + ", READ back into " + back;
            return post(id -> client.write(from, target.remote(), at, OperationFlags.NONE),
                    (callback, id) -> client.write(from, target.remote(), at, OperationFlags.NONE, callback, id))
                    .thenCompose(written -> {
                        assertThat(written).isEqualTo(size);
                        return post(id -> client.read(back, target.remote(), at, OperationFlags.NONE),
                                (callback, id) -> client.read(back, target.remote(), at, OperationFlags.NONE, callback,
                                        id));
                    })
                    .thenAccept(bytes -> {
                        check(bytes, size, back, source);
                        assertThat(target.buffer().slice(at, size).mismatch(ByteBuffer.wrap(PATTERN, source, size)))
                                .as("the target's bytes after the WRITE").isEqualTo(-1);
                    });
        }

        private CompletableFuture<Void> send(int size) {
            int source = random.nextInt(PATTERN.length - size + 1);
            ScatterGatherList from = scatter(0, size);
            fill(from, source);
            current = "SEND " + size + " B from " + from;
            CompletableFuture<Completion> receive = received;
            return post(id -> client.send(from, OperationFlags.NONE), (callback, id) -> client.send(from,
                    OperationFlags.NONE, callback, id))
                    .thenCompose(sent -> {
                        assertThat(sent).isEqualTo(size);
                        return receive;
                    })
                    .thenCompose(message -> {
                        assertThat(message.bytes()).as("bytes received").isEqualTo(size);
                        assertThat(target.buffer().slice(0, size).mismatch(ByteBuffer.wrap(PATTERN, source, size)))
                                .as("the bytes received").isEqualTo(-1);
                        bytesChecked.add(size);
                        return postReceive();
                    });
        }

        /**
         * Posts the next receive and completes once the server's poller has run it: a zero-length READ the server
         * issues after it completes only then, and a device such as siw ends a connection whose SEND finds no
         * receive.
         */
        CompletableFuture<Void> postReceive() {
            received = server.receive(target.slice(0, MAX_SIZE));
            return server.read(target.slice(0, 0), local.remote(), 0, OperationFlags.NONE).thenAccept(ignored -> { });
        }

        /**
         * Posts one operation with a fresh id, with a future for even ids and a callback for odd ones; its
         * completion is counted once, and any other as a duplicate.
         */
        private CompletableFuture<Integer> post(LongFunction<CompletableFuture<Completion>> future,
                                                BiConsumer<CompletionCallback, Long> callback) {
            long id = nextId++;
            inFlight.set(id);
            operations.increment();
            if (id % 2 == 0) {
                return future.apply(id).thenApply(completion -> {
                    countOnce(id);
                    return completion.bytes();
                });
            }
            CompletableFuture<Integer> done = new CompletableFuture<>();
            callback.accept(new CompletionCallback() {
                @Override
                public void completed(long context, int bytes) {
                    countOnce(context);
                    done.complete(bytes);
                }

                @Override
                public void failed(long context, RdmaException error) {
                    countOnce(context);
                    done.completeExceptionally(error);
                }
            }, id);
            return done;
        }

        /** One operation is in flight at a time: a completion for any other id, or a second one, is a duplicate. */
        private void countOnce(long id) {
            if (inFlight.compareAndSet(id, -1)) {
                completed.incrementAndGet();
            } else {
                duplicates.increment();
            }
        }

        /** {@code size} bytes at {@code offset} of the local region in 1..segments pieces with gaps between. */
        private ScatterGatherList scatter(int offset, int size) {
            int pieces = Math.min(size, 1 + random.nextInt(segments));
            ScatterGatherList list = new ScatterGatherList(pieces);
            int at = offset;
            int left = size;
            for (int i = pieces; i > 0; i--) {
                int length = i == 1 ? left : 1 + random.nextInt(left - i + 1);
                at += random.nextInt(8);
                list.add(local, at, length);
                at += length;
                left -= length;
            }
            return list;
        }

        private void fill(ScatterGatherList list, int source) {
            for (int i = 0; i < list.size(); i++) {
                list.region(i).buffer().put(list.offset(i), PATTERN, source, list.length(i));
                source += list.length(i);
            }
        }

        private void check(int bytes, int size, ScatterGatherList list, int source) {
            assertThat(bytes).as("bytes completed").isEqualTo(size);
            for (int i = 0; i < list.size(); i++) {
                int length = list.length(i);
                assertThat(list.region(i).buffer().slice(list.offset(i), length)
                        .mismatch(ByteBuffer.wrap(PATTERN, source, length))).as("segment %d of %s", i, list)
                        .isEqualTo(-1);
                source += length;
            }
            bytesChecked.add(size);
        }

        void close() {
            client.close();
            server.close();
            for (MemoryRegion region : new MemoryRegion[] {local, target}) {
                if (region != null) {
                    region.close();
                }
            }
        }
    }
}
