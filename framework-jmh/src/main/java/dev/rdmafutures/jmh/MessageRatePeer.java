package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server process of {@link MessageRate} (a {@link ChildJvm}), so that the CPU time of each side is its own
 * process's. One side at a time runs in it; the other is closed or ended, as its busy thread would count too. It
 * answers these commands on its standard input, one line each, with an {@code error ...} line instead when something
 * failed since the last command:
 * <ul>
 *   <li>{@code rdma OP SIZE WINDOW}: a runtime of {@code -Dbench.provider} (default soft) with one busy-spinning
 *   poller (verbs: a blocking one for READ and WRITE), a listener, and a region of WINDOW x SIZE bytes the peer may
 *   read and write (for SEND, as many slots as receives); it accepts every connection (read limits WINDOW; a paced
 *   one beyond the 64th is refused) and, for SEND, posts
 *   {@link SendCredits#receives} receives of SIZE bytes on each, every one re-posted from its completion, and grants
 *   a paced client its Sends by WRITEs into the word its private data names ({@link SendCredits}). Answers
 *   {@code rdma ADDRESS:PORT REGION}.</li>
 *   <li>{@code rdma-close}: waits (at most 10 s) until the client has ended every connection, closes the runtime;
 *   answers {@code rdma-close SENDS}, the Sends received.</li>
 *   <li>{@code nio REQUEST RESPONSE WINDOW N}: a thread that accepts N connections and answers each REQUEST bytes
 *   with RESPONSE bytes ({@link PipelinedNio#serve}) until the client has closed them all. Answers
 *   {@code nio ADDRESS:PORT}.</li>
 *   <li>{@code cpu}: {@code cpu NANOS}, this process's CPU time (user and system, all threads).</li>
 * </ul>
 * It ends at {@code quit} or at the end of its input, which is when its parent ended.
 *
 * <p>Usage: {@code MessageRatePeer} (run by {@link MessageRate}).
 */
final class MessageRatePeer {
    private static final long CLOSE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long JOIN_MILLIS = 20_000;
    /** Connections one paced SEND row may have: each takes its words of the grant region. */
    private static final int MAX_CONNECTIONS = 64;
    /** The bytes of the grant region each paced connection's grants are written from. */
    private static final int CONNECTION_GRANTS = SendCredits.GRANTS_IN_FLIGHT * SendCredits.GRANT_BYTES;
    private final String provider = System.getProperty("bench.provider", "soft");
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final LongAdder received = new LongAdder();
    private RdmaRuntime runtime;
    private Thread baseline;

    private MessageRatePeer() {
    }

    public static void main(String[] args) throws Exception {
        MessageRatePeer peer = new MessageRatePeer();
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
                String answer;
                try {
                    answer = peer.run(line.split(" "));
                } catch (Exception e) {
                    peer.failure.compareAndSet(null, e);
                    answer = null;
                }
                Throwable failed = peer.failure.getAndSet(null);
                System.out.println(failed == null ? answer : "error " + failed);
            }
        } finally {
            if (peer.runtime != null) {
                peer.runtime.close();
            }
        }
        System.exit(0); // whatever thread lingers: the parent ended, so must this process
    }

    private String run(String[] command) throws Exception {
        return switch (command[0]) {
            case "rdma" -> rdma(MessageRate.Op.valueOf(command[1]), Integer.parseInt(command[2]),
                    Integer.parseInt(command[3]));
            case "rdma-close" -> closeRdma();
            case "nio" -> nio(Integer.parseInt(command[1]), Integer.parseInt(command[2]), Integer.parseInt(command[3]),
                    Integer.parseInt(command[4]));
            case "cpu" -> "cpu " + ((com.sun.management.OperatingSystemMXBean) ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime();
            default -> throw new IllegalArgumentException("unknown command: " + String.join(" ", command));
        };
    }

    private String rdma(MessageRate.Op op, int size, int window) throws Exception {
        awaitBaseline();
        received.reset();
        // verbs answers READs and WRITEs in the device: then its poller sleeps, as ib_read_bw's and ib_write_bw's
        // server does; SENDs need their receives re-posted, and ib_send_bw's server busy-polls for them too.
        IdleStrategy idle = provider.equals("soft") || op == MessageRate.Op.SEND ? IdleStrategy.BUSY_SPIN
                : IdleStrategy.BLOCKING;
        runtime = Pair.builder(provider).threadNamePrefix("msgrate-server").pollerThreads(1).idleStrategy(idle)
                .build();
        RdmaListener listener = runtime.listen(new InetSocketAddress(Pair.address(provider), 0));
        boolean send = op == MessageRate.Op.SEND;
        int receives = send ? SendCredits.receives(window) : 1;
        MemoryRegion region = runtime.register(ByteBuffer.allocateDirect(Math.max(window, receives) * size),
                Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        RegionSlice[] slots = Posts.slots(region, receives, size); // every connection's receive i lands in slot i
        MemoryRegion grants = send ? runtime.register(ByteBuffer.allocateDirect(MAX_CONNECTIONS * CONNECTION_GRANTS))
                : null;
        AtomicInteger accepted = new AtomicInteger();
        listener.onRequest(r -> {
            // A paced SEND client names the word its grants go to (SendCredits); grants are WRITEs in flight.
            RemoteBuffer grantWord = send && r.privateData().length >= RemoteBuffer.ENCODED_LENGTH
                    ? RemoteBuffer.decode(r.privateData()) : null;
            int connection = accepted.getAndIncrement();
            if (grantWord != null && connection >= MAX_CONNECTIONS) {
                failure.compareAndSet(null, new IllegalStateException("more than " + MAX_CONNECTIONS
                        + " paced connections"));
                r.reject(new byte[0]);
                return;
            }
            int initiator = grantWord != null ? SendCredits.GRANTS_IN_FLIGHT : 1;
            r.withReadLimits(window, window).withQueueDepths(initiator, receives).accept().whenComplete((c, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else if (send) {
                    new Receiver(c, slots, grantWord, grants, connection * CONNECTION_GRANTS).start();
                }
            });
        });
        return "rdma " + ChildJvm.format(listener.localAddress()) + " " + HexFormat.of()
                .formatHex(region.remote().encode());
    }

    private String closeRdma() throws InterruptedException {
        try {
            long deadline = System.nanoTime() + CLOSE_NANOS;
            while (runtime.metrics().open() > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(runtime.metrics().open() + " connections still open "
                            + TimeUnit.NANOSECONDS.toSeconds(CLOSE_NANOS) + " s after the client closed its runtime");
                }
                Thread.sleep(1);
            }
        } finally {
            runtime.close();
            runtime = null;
        }
        return "rdma-close " + received.sum();
    }

    private String nio(int request, int response, int window, int n) throws Exception {
        awaitBaseline();
        ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(Pair.address(provider), 0));
        baseline = new Thread(() -> {
            try {
                PipelinedNio.serve(listener, n, window, request, response);
            } catch (IOException | RuntimeException e) {
                failure.compareAndSet(null, e);
            }
        }, "msgrate-baseline-server");
        baseline.setDaemon(true);
        baseline.start();
        return "nio " + ChildJvm.format((InetSocketAddress) listener.getLocalAddress());
    }

    /** Waits for the last baseline server to end: its client closed its connections before this command. */
    private void awaitBaseline() throws InterruptedException {
        if (baseline != null) {
            baseline.join(JOIN_MILLIS);
            if (baseline.isAlive()) {
                throw new IllegalStateException("the baseline server still runs " + JOIN_MILLIS / 1000
                        + " s after its client closed");
            }
        }
    }

    /**
     * One connection's receives, each re-posted from its completion, and the grants that pace its sender
     * ({@link SendCredits}); on the poller thread, without allocating.
     */
    private final class Receiver implements CompletionCallback {
        private final RdmaConnection connection;
        /** Slot {@code i}'s local side, built once: a slice per post would allocate one per operation. */
        private final RegionSlice[] slots;
        /** The grants to the client; null when it sends unpaced. */
        private final SendCredits.Receiver credits;

        Receiver(RdmaConnection connection, RegionSlice[] slots, RemoteBuffer grantWord, MemoryRegion grants,
                 int grantsOffset) {
            this.connection = connection;
            this.slots = slots;
            this.credits = grantWord == null ? null : new SendCredits.Receiver(connection, grantWord, grants,
                    grantsOffset, slots.length, this, e -> failure.compareAndSet(null, e));
        }

        /** Posts every receive, then grants a paced sender as many Sends. */
        void start() {
            for (int slot = 0; slot < slots.length; slot++) {
                post(slot);
            }
            if (credits != null) {
                credits.start();
            }
        }

        /** Posts receive {@code slot}; a refusal is a failure unless the client has ended the connection. */
        private void post(long slot) {
            Status status = connection.receive(slots[(int) slot], this, slot);
            if (status != Status.SUCCESS && connection.isConnected()) {
                failure.compareAndSet(null, Posts.refusal(status, "RECEIVE"));
            }
        }

        @Override
        public void completed(long context, int bytes) {
            if (context == SendCredits.GRANT_CONTEXT) {
                credits.onGrantWritten();
                return;
            }
            received.increment();
            post(context);
            if (credits != null) {
                credits.consumed();
            }
        }

        @Override
        public void failed(long context, RdmaException error) {
            // CANCELED: the client ended the connection; so did a grant that failed on a connection gone meanwhile.
            boolean ended = error.status() == Status.CANCELED
                    || (context == SendCredits.GRANT_CONTEXT && !connection.isConnected());
            if (!ended) {
                failure.compareAndSet(null, error);
            }
        }
    }
}
