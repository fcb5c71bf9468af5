package dev.rdmafutures.jmh;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Receiver-paced Sends for {@link MessageRate} on devices: a Send stream's sender learns nothing from its completions
 * about the receiver's receives (rxe completes a Send once the peer's device placed it, siw once the socket took it),
 * so a receiver that re-posts more slowly than the sender sends runs out: rxe answers RNR NAKs and the sender waits
 * out the RNR timer, and siw, as iWARP has no RNR, terminates the stream. So the receiver grants Sends, as rsockets
 * and credit-based RPCs do: it RDMA-WRITEs into an 8-byte word of the sender's memory how many Sends it can take in
 * all (the receives it consumed and re-posted, plus the {@link #receives} it keeps posted), every {@link #BATCH}
 * receives; the sender posts a Send only while it has sent fewer. A grant costs the RDMA side one WRITE per
 * {@value #BATCH} Sends. soft needs none of this: it holds a Send that finds no receive until one is posted.
 *
 * <p>A grant is the count written twice ({@link #GRANT_BYTES}): RDMA does not make a WRITE's bytes land at once (a
 * guest kernel may copy them one by one), so the sender reads the second copy, then the first, and takes the
 * smaller. Copies land in order, so at most one of the two is half-written when read, and the other bounds it: the
 * sender never sees more than was granted.
 */
final class SendCredits {
    /** Receives posted per connection when the window is smaller: ib_send_bw's default receive depth. */
    static final int RECEIVE_DEPTH = 512;
    /** Receives consumed between two grants. */
    static final int BATCH = 64;
    /** The context of a grant's WRITE in the receiver's callback; a receive's is its slot, from 0. */
    static final long GRANT_CONTEXT = -1;
    /**
     * Grant WRITEs in flight at most, each from its own {@link #GRANT_BYTES} of the receiver's grant region. Each
     * carries the count when it was posted, so a duty cycle that consumed many receives grants the later ones only
     * once an earlier grant completed; with a window up to {@link #RECEIVE_DEPTH}, this many cover a whole receive
     * depth in one cycle.
     */
    static final int GRANTS_IN_FLIGHT = RECEIVE_DEPTH / BATCH;
    /** The bytes of one grant: the count, twice. */
    static final int GRANT_BYTES = 2 * Long.BYTES;
    /** One copy of the count: big-endian. */
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private SendCredits() {
    }

    /** The receives a connection keeps posted for a sender with {@code window} Sends in flight. */
    static int receives(int window) {
        return Math.max(window, RECEIVE_DEPTH);
    }

    /**
     * The sender's side: the grant the receiver writes (at {@code offset} of {@code grants}, a buffer of a region the
     * peer may write, {@link #GRANT_BYTES} long), and the Sends posted so far. Thread-safe: a Send may be posted from
     * the poller's callbacks and from the thread that re-posts parked ones.
     */
    static final class Sender {
        private final ByteBuffer grants;
        private final int offset;
        private final int receives;
        private final AtomicLong sent = new AtomicLong();

        /** The sender of a receiver that keeps {@code receives} posted. */
        Sender(ByteBuffer grants, int offset, int receives) {
            this.grants = grants;
            this.offset = offset;
            this.receives = receives;
        }

        /** Takes one Send's credit; false, nothing taken, while every granted Send was sent. */
        boolean tryTake() {
            long granted = granted();
            long s;
            do {
                s = sent.get();
                if (s >= granted) {
                    return false;
                }
            } while (!sent.compareAndSet(s, s + 1));
            return true;
        }

        /** Whether a Send could be posted now. */
        boolean hasCredit() {
            return sent.get() < granted();
        }

        /**
         * Whether the receiver grants nothing more once the Sends posted so far have arrived: its last grant, made
         * fewer than {@link #BATCH} receives before the last Send, has landed. Then a disconnect finds no grant on its
         * way, which would otherwise reach a closed socket and reset the connection (and the Sends behind it).
         */
        boolean quiet() {
            return granted() >= sent.get() - (BATCH - 1) + receives;
        }

        /** The grant: the smaller of its two copies, the second read first (see the class comment). */
        private long granted() {
            long second = (long) WORD.getVolatile(grants, offset + Long.BYTES);
            long first = (long) WORD.getVolatile(grants, offset);
            return Math.min(first, second);
        }
    }

    /**
     * The receiver's side on one connection: counts the receives consumed and re-posted, and grants by a WRITE into
     * {@code peerWord} from {@code local} ({@link #GRANT_BYTES} per grant in flight). Confined to the connection's
     * poller, where its receives' and grants' completions run.
     */
    static final class Receiver {
        private final RdmaConnection connection;
        private final RemoteBuffer peerWord;
        private final RegionSlice[] local;
        /** The local words' region's bytes, viewed once: a view per grant would allocate. */
        private final ByteBuffer localBytes;
        private final int receives;
        private final CompletionCallback callback;
        private final Consumer<RdmaException> failure;
        private long consumed;
        private long grantedAt = -1;
        private int inFlight;
        private int writes;

        /**
         * Grants on {@code connection}, which keeps {@code receives} posted, from {@link #GRANTS_IN_FLIGHT} slots of
         * {@code grants} starting at {@code offset}; {@code callback} gets the grants' WRITE completions with
         * {@link #GRANT_CONTEXT} and hands them to {@link #onGrantWritten}; a failure goes to {@code failure}.
         */
        Receiver(RdmaConnection connection, RemoteBuffer peerWord, MemoryRegion grants, int offset, int receives,
                 CompletionCallback callback, Consumer<RdmaException> failure) {
            if (peerWord.length() < GRANT_BYTES) {
                throw new IllegalArgumentException("a grant needs a peer slot of " + GRANT_BYTES + " bytes");
            }
            this.connection = connection;
            this.peerWord = peerWord;
            this.local = new RegionSlice[GRANTS_IN_FLIGHT];
            for (int i = 0; i < local.length; i++) {
                local[i] = grants.slice(offset + i * GRANT_BYTES, GRANT_BYTES);
            }
            this.localBytes = grants.buffer();
            this.receives = receives;
            this.callback = callback;
            this.failure = failure;
        }

        /** The first grant, once the receives are posted: the sender may send them all. */
        void start() {
            grant();
        }

        /** A receive was consumed and re-posted. */
        void consumed() {
            consumed++;
            if (consumed - grantedAt >= BATCH) {
                grant();
            }
        }

        /** A grant's WRITE completed; a grant held back while all were in flight goes now. */
        void onGrantWritten() {
            inFlight--;
            if (consumed - grantedAt >= BATCH) {
                grant();
            }
        }

        private void grant() {
            if (inFlight == GRANTS_IN_FLIGHT) {
                return; // the next consumed receive, or the next completed grant, tries again
            }
            RegionSlice word = local[writes % GRANTS_IN_FLIGHT];
            WORD.setVolatile(localBytes, word.offset(), consumed + receives);
            WORD.setVolatile(localBytes, word.offset() + Long.BYTES, consumed + receives);
            Status status = connection.write(word, peerWord, 0, OperationFlags.NONE, callback, GRANT_CONTEXT);
            if (status == Status.SUCCESS) {
                inFlight++;
                writes++;
                grantedAt = consumed;
            } else if (connection.isConnected()) {
                failure.accept(Posts.refusal(status, "the grant's WRITE"));
            }
        }
    }
}
