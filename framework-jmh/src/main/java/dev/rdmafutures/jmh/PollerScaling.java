package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Aggregate throughput as pollers and connections grow (issue 16, item 3), on the soft provider over loopback: a
 * client and a server runtime with P pollers each, N connections spread over them (round robin, both sides), every
 * connection keeping {@value #WINDOW} READs or WRITEs in flight, each re-posted from its completion callback on the
 * client poller that owns the connection. Reports 64 KiB READ and WRITE throughput and the 8 B READ rate per
 * (P, N), and for each (P, N &gt; 1) the share of operations the busiest and the idlest connection got, which shows
 * whether one connection can starve the others. {@code bin/bench} runs {@code iperf3 -P N} beside it.
 *
 * <p>Usage: {@code PollerScaling POLLERS CONNECTIONS SECONDS OUT.json} (lists comma-separated).
 */
public final class PollerScaling {
    private static final int WINDOW = 16;
    private static final int LARGE = 64 * 1024;
    private static final int SMALL = 8;
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private enum Load { READ_64K, WRITE_64K, READ_8B }

    private PollerScaling() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: PollerScaling POLLERS CONNECTIONS SECONDS OUT.json");
            System.exit(2);
        }
        int[] pollers = Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray();
        int[] connections = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        long nanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        List<String> rows = new ArrayList<>();
        for (int p : pollers) {
            for (int n : connections) {
                try (Setup setup = new Setup(p, n)) {
                    for (Load load : Load.values()) {
                        Result r = setup.run(load, nanos);
                        String row = String.format(Locale.ROOT, "{\"pollers\": %d, \"connections\": %d, \"load\": "
                                        + "\"%s\", \"ops_per_s\": %.1f, \"mib_per_s\": %.2f, \"busiest_share\": %.4f, "
                                        + "\"idlest_share\": %.4f}", p, n, load, r.opsPerSecond(),
                                r.opsPerSecond() * r.size() / (1024.0 * 1024.0), r.busiestShare(), r.idlestShare());
                        System.out.println(row);
                        rows.add(row);
                    }
                }
            }
        }
        Files.writeString(Path.of(args[3]), "[\n  " + String.join(",\n  ", rows) + "\n]\n");
    }

    private record Result(double opsPerSecond, int size, double busiestShare, double idlestShare) {
    }

    /** Two runtimes with {@code pollers} pollers each and {@code count} connections between them. */
    private static final class Setup implements AutoCloseable {
        private final RdmaRuntime client;
        private final RdmaRuntime server;
        private final List<Stream> streams = new ArrayList<>();

        Setup(int pollers, int count) throws Exception {
            server = Pair.builder("soft").threadNamePrefix("scale-server").pollerThreads(pollers).build();
            client = Pair.builder("soft").threadNamePrefix("scale-client").pollerThreads(pollers).build();
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.onRequest(request -> request.withReadLimits(WINDOW, WINDOW).withQueueDepths(WINDOW, 1)
                    .accept());
            MemoryRegion exposed = server.register(ByteBuffer.allocateDirect(WINDOW * LARGE), Access.LOCAL_WRITE,
                    Access.REMOTE_READ, Access.REMOTE_WRITE);
            for (int i = 0; i < count; i++) {
                CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                        .withReadLimits(WINDOW, WINDOW).withQueueDepths(WINDOW, 1).start();
                MemoryRegion local = client.register(ByteBuffer.allocateDirect(WINDOW * LARGE), Access.LOCAL_WRITE);
                streams.add(new Stream(c.get(20, TimeUnit.SECONDS), local, exposed.remote()));
            }
        }

        Result run(Load load, long nanos) throws Exception {
            AtomicReference<RdmaException> failure = new AtomicReference<>();
            streams.forEach(s -> s.start(load, failure));
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(WARM_UP_NANOS));
            long[] before = streams.stream().mapToLong(s -> s.done.sum()).toArray();
            long start = System.nanoTime();
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
            long elapsed = System.nanoTime() - start;
            long[] counts = new long[streams.size()];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = streams.get(i).done.sum() - before[i];
            }
            for (Stream s : streams) {
                s.stop();
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            long total = Arrays.stream(counts).sum();
            double even = total / (double) counts.length;
            return new Result(total / (elapsed / 1e9), load == Load.READ_8B ? SMALL : LARGE,
                    Arrays.stream(counts).max().orElse(0) / Math.max(1, even),
                    Arrays.stream(counts).min().orElse(0) / Math.max(1, even));
        }

        @Override
        public void close() {
            client.close();
            server.close();
        }
    }

    /** One connection's window of operations, each re-posted from its callback until stopped. */
    private static final class Stream implements CompletionCallback {
        final LongAdder done = new LongAdder();
        private final RdmaConnection connection;
        /** Slot {@code i}'s local side, 64 KiB or 8 B from {@code i * LARGE}, built once (posting allocates none). */
        private final RegionSlice[] large;
        private final RegionSlice[] small;
        private final RemoteBuffer remote;
        private volatile CompletableFuture<Void> drained;
        private volatile boolean running;
        private Load load;
        private AtomicReference<RdmaException> failure;
        private int outstanding;

        Stream(RdmaConnection connection, MemoryRegion local, RemoteBuffer remote) {
            this.connection = connection;
            this.large = Posts.slots(local, WINDOW, LARGE);
            this.small = Posts.slots(local, WINDOW, LARGE, SMALL);
            this.remote = remote;
        }

        void start(Load kind, AtomicReference<RdmaException> failures) {
            this.load = kind;
            this.failure = failures;
            drained = new CompletableFuture<>();
            running = true;
            synchronized (this) {
                outstanding = WINDOW;
            }
            for (int slot = 0; slot < WINDOW; slot++) {
                post(slot);
            }
        }

        /** Posts slot {@code slot}; a refusal fails the run as a failed operation does (it is not in flight). */
        private void post(long slot) {
            int i = (int) slot;
            long offset = slot * LARGE;
            Status status = switch (load) {
                case READ_64K -> connection.read(large[i], remote, offset, OperationFlags.NONE, this, slot);
                case WRITE_64K -> connection.write(large[i], remote, offset, OperationFlags.NONE, this, slot);
                case READ_8B -> connection.read(small[i], remote, offset, OperationFlags.NONE, this, slot);
            };
            if (status != Status.SUCCESS) {
                failure.compareAndSet(null, Posts.refusal(status, load.name()));
                settle();
            }
        }

        @Override
        public void completed(long slot, int bytes) {
            done.increment();
            if (running) {
                post(slot);
            } else {
                settle();
            }
        }

        @Override
        public void failed(long slot, RdmaException error) {
            failure.compareAndSet(null, error);
            settle();
        }

        private synchronized void settle() {
            if (--outstanding == 0) {
                drained.complete(null);
            }
        }

        /** Stops re-posting and waits until the window has drained. */
        void stop() throws Exception {
            running = false;
            try {
                drained.get(20, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new IOException("a connection's operations did not drain within 20 s", e);
            }
        }
    }
}
