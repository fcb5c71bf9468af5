package dev.rdmafutures.jmh;

import com.sun.management.ThreadMXBean;
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
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What one small operation costs in CPU, both sides together: a client and a server {@code soft} runtime, both
 * application-driven and polled in turn by this one thread, keep {@code window} READs or WRITEs in flight on each
 * connection, re-posted from their callbacks. Since one thread does all the work of both ends (loopback delivers
 * a write to the peer's socket within the writing call), its CPU time per operation is the whole cost of an
 * operation: the framework's and the kernel's, requester and responder. It needs one core only, so it stays
 * readable on a machine whose other core is busy, where a rate measured with two spinning threads does not; the
 * profiles in {@code docs/profiles/} were taken with it. Prints operations per second, CPU nanoseconds and heap
 * bytes allocated per operation.
 *
 * <p>Usage: {@code SmallOpCost READ|WRITE SIZE WINDOW CONNECTIONS SECONDS}.
 */
public final class SmallOpCost {
    private static final long CONNECT_NANOS = TimeUnit.SECONDS.toNanos(20);

    private SmallOpCost() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 || !(args[0].equals("READ") || args[0].equals("WRITE"))) {
            System.err.println("usage: SmallOpCost READ|WRITE SIZE WINDOW CONNECTIONS SECONDS");
            System.exit(2);
        }
        boolean read = args[0].equals("READ");
        int size = Integer.parseInt(args[1]);
        int window = Integer.parseInt(args[2]);
        int connections = Integer.parseInt(args[3]);
        long nanos = (long) (Double.parseDouble(args[4]) * 1e9);
        try (RdmaRuntime server = Pair.builder("soft").threadNamePrefix("cost-server").pollerThreads(0).build();
             RdmaRuntime client = Pair.builder("soft").threadNamePrefix("cost-client").pollerThreads(0).build()) {
            MemoryRegion serverRegion = server.register(ByteBuffer.allocateDirect(size * window), Access.LOCAL_WRITE,
                    Access.REMOTE_READ, Access.REMOTE_WRITE);
            MemoryRegion clientRegion = client.register(ByteBuffer.allocateDirect(size * window),
                    Access.LOCAL_WRITE);
            RegionSlice[] slots = Posts.slots(clientRegion, window, size); // shared: each load posts slot i there
            List<Load> loads = new ArrayList<>();
            try (RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                for (int i = 0; i < connections; i++) {
                    listener.next().thenCompose(r -> r.withReadLimits(window, window).accept());
                    CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                            .withReadLimits(window, window).withQueueDepths(window, 1).start();
                    long deadline = System.nanoTime() + CONNECT_NANOS;
                    while (!c.isDone() && System.nanoTime() - deadline < 0) {
                        client.poll();
                        server.poll();
                    }
                    loads.add(new Load(c.getNow(null), read, slots, serverRegion.remote(), size));
                }
            }
            for (Load load : loads) {
                load.start(window);
            }
            run(client, server, loads, nanos / 2); // warm-up
            ThreadMXBean thread = (ThreadMXBean) ManagementFactory.getThreadMXBean();
            long ops = count(loads);
            long cpu = thread.getCurrentThreadCpuTime();
            long allocated = thread.getCurrentThreadAllocatedBytes();
            long start = System.nanoTime();
            run(client, server, loads, nanos);
            long elapsed = System.nanoTime() - start;
            double n = count(loads) - ops;
            System.out.printf(Locale.ROOT, "%s %d B, window %d, %d connection(s): %.0f ops/s, %.0f ns CPU/op, "
                            + "%.1f B/op%n", args[0], size, window, connections, n * 1e9 / elapsed,
                    (thread.getCurrentThreadCpuTime() - cpu) / n,
                    (thread.getCurrentThreadAllocatedBytes() - allocated) / n);
            for (Load load : loads) {
                load.stop();
            }
            for (int i = 0; i < 10_000 && loads.stream().anyMatch(Load::busy); i++) {
                client.poll();
                server.poll();
            }
        }
    }

    private static void run(RdmaRuntime client, RdmaRuntime server, List<Load> loads, long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            client.poll();
            server.poll();
            for (int i = 0; i < loads.size(); i++) { // by index: an iterator per pass would count as the ops'
                if (loads.get(i).error != null) {
                    throw loads.get(i).error;
                }
            }
        }
    }

    private static long count(List<Load> loads) {
        long n = 0;
        for (Load load : loads) {
            n += load.completed;
        }
        return n;
    }

    /** One connection's window of operations, each re-posted from its callback until stopped. */
    private static final class Load implements CompletionCallback {
        private final RdmaConnection connection;
        private final boolean read;
        /** Slot {@code i}'s local side, built once: a slice per post would allocate one per operation. */
        private final RegionSlice[] slots;
        private final RemoteBuffer remote;
        private final int size;
        long completed;
        int outstanding;
        boolean stopped;
        RdmaException error;

        Load(RdmaConnection connection, boolean read, RegionSlice[] slots, RemoteBuffer remote, int size) {
            if (connection == null) {
                throw new IllegalStateException("a connection was not established within 20 s");
            }
            this.connection = connection;
            this.read = read;
            this.slots = slots;
            this.remote = remote;
            this.size = size;
        }

        void start(int window) {
            for (int slot = 0; slot < window; slot++) {
                post(slot);
            }
        }

        void stop() {
            stopped = true;
        }

        boolean busy() {
            return outstanding > 0;
        }

        /** Posts slot {@code slot}; a refusal fails the run as a failed operation does (it is not in flight). */
        private void post(int slot) {
            outstanding++;
            Status status = read
                    ? connection.read(slots[slot], remote, (long) slot * size, OperationFlags.NONE, this, slot)
                    : connection.write(slots[slot], remote, (long) slot * size, OperationFlags.NONE, this, slot);
            if (status != Status.SUCCESS) {
                outstanding--;
                error = Posts.refusal(status, read ? "READ" : "WRITE");
            }
        }

        @Override
        public void completed(long slot, int bytes) {
            outstanding--;
            completed++;
            if (!stopped) {
                post((int) slot);
            }
        }

        @Override
        public void failed(long slot, RdmaException e) {
            outstanding--;
            error = e;
        }
    }
}
