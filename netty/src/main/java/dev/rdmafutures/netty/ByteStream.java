package dev.rdmafutures.netty;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.io.IOException;

/**
 * A byte stream over one connection's SEND and RECEIVE, with credits: this side keeps {@code receiveDepth}
 * receives of {@code bufferSize} bytes posted, and the peer sends only while it holds a credit for one, so a Send
 * never finds the peer without a receive and the transport never has to wait or fail for it.
 *
 * <p>Every message starts with a 4-byte header: the credits the sender returns (16 bits, one per receive of the
 * peer's it consumed and posted again since its last message) and a FIN flag (its output is shut). The rest is
 * stream bytes. Credits ride on data messages; a side with nothing to send returns them in a header-only message
 * once half its receive depth is owed. A data message never takes the sender's last credit, which stays for such a
 * credit return, so two sides that each wait for credits cannot both be stuck.
 *
 * <p>Writes are coalesced: what one flush finds in Netty's outbound buffer goes into as few messages as fit
 * ({@link SendBuffers}: copied, or sent from where it lies when it is in the loop's registered memory), and each is
 * one SEND; one duty cycle's SENDs leave in one gathering write or chained post. Received bytes are
 * copied out of the {@link ReceiveRing} into a buffer of the channel's allocator and the receive is posted again at
 * once, so an application that keeps a buffer holds no receive of the stream's.
 *
 * <p>Confined to the event loop that owns the connection: every method, and the completion callbacks, run on it.
 */
final class ByteStream implements CompletionCallback {
    static final int HEADER_BYTES = 4;
    private static final int CREDIT_MASK = 0xFFFF;
    private static final int FIN = 1 << 16;
    private static final long SEND = 1L << 32;
    private static final long PROBE = 1L << 33;
    /**
     * How often the channel calls {@link #probe()}: a peer silent for one to two of these is READ, and the runtime's
     * liveness deadline runs from then. An idle connection costs one small READ per two intervals.
     */
    static final long PROBE_INTERVAL_MILLIS = 500;

    /** What the stream tells its channel; called on the owning event loop. */
    interface Events {
        /** Bytes or the peer's FIN arrived. */
        void readable();

        /** Credits or send buffers came free, so a blocked write can go on. */
        void writable();

        /** The connection failed for a reason other than its end (that comes through its disconnected future). */
        void failed(Throwable cause);
    }

    private final RdmaConnection connection;
    /** The event loop that owns the connection's runtime, the one thread this stream runs on. */
    private final ThreadAwareExecutor loop;
    private final Events events;
    private final int peerReceiveDepth;
    private final ReceiveRing receives;
    private final SendBuffers sends;
    private final int[] readySlots;
    private final int[] readyLengths;
    private int readyHead;
    private int readyCount;
    /** Bytes of the oldest waiting message already taken. */
    private int readOffset;
    private final int creditThreshold;
    private int credits;
    private int owed;
    private boolean finSent;
    private boolean finReceived;
    private boolean closing;
    private boolean closed;
    /** What the peer offered to be READ for a liveness probe (null: nothing, so it is never probed). */
    private final RemoteBuffer peerProbe;
    private final RegionSlice probeSink;
    /** Something came from the peer since the last {@link #probe()}. */
    private boolean heard;
    private boolean probing;

    private ByteStream(RdmaRuntime runtime, RdmaConnection connection, StreamSettings local, StreamHello peer,
                       ReceiveRing receives, RegionSlice probeSink, RegisteredBufferAllocator registered,
                       ThreadAwareExecutor loop, Events events) {
        this.connection = connection;
        this.peerProbe = peer.probe();
        this.probeSink = probeSink;
        this.loop = loop;
        this.events = events;
        // The peer accepts messages up to its buffer size; this side sends at most its own, so a hello cannot make it
        // register more than its own settings allow.
        int peerBufferSize = Math.min(peer.bufferSize(), local.bufferSize());
        this.peerReceiveDepth = peer.receiveDepth();
        this.sends = new SendBuffers(runtime, local.sendDepth(), peerBufferSize, registered);
        this.receives = receives;
        int receiveDepth = receives.depth();
        this.readySlots = new int[receiveDepth];
        this.readyLengths = new int[receiveDepth];
        this.credits = peer.receiveDepth();
        this.creditThreshold = Math.max(2, receiveDepth / 2);
    }

    /**
     * Opens the stream over {@code receives} (made with {@code local}), which it owns from then on: registers the send
     * buffers and posts every receive not posted yet, before the caller returns to its event loop, so that no message
     * of the peer's can arrive before its receive is posted.
     *
     * @throws RdmaException when the buffers cannot be registered or the receives posted: the send buffers are
     *                       released, {@code receives} is still the caller's ({@link ReceiveRing#closeUnused})
     */
    static ByteStream open(RdmaRuntime runtime, RdmaConnection connection, StreamSettings local, StreamHello peer,
                           ReceiveRing receives, RegionSlice probeSink, RegisteredBufferAllocator registered,
                           ThreadAwareExecutor loop, Events events) {
        ByteStream stream = new ByteStream(runtime, connection, local, peer, receives, probeSink, registered, loop,
                events);
        try {
            receives.attach(connection, stream, loop);
        } catch (RuntimeException e) {
            stream.sends.release();
            throw e;
        }
        return stream;
    }

    /**
     * Sends what {@code in} holds ({@code ByteBuf}s and {@code FileRegion}s), coalesced into as few messages as fit;
     * returns false when credits or send buffers ran out first ({@link Events#writable()} follows when they come back).
     *
     * @throws IOException when a SEND is refused (the connection is ending), or a file region cannot be transferred
     *     (what came before it is sent)
     */
    boolean write(ChannelOutboundBuffer in) throws IOException {
        while (in.current() != null) {
            if (!sends.hasFree() || credits < 2) {
                return false;
            }
            int slot = sends.take();
            ScatterGatherList segments;
            try {
                segments = sends.fill(slot, in);
            } catch (IOException e) { // a file region failed before any byte was in the slot
                sendEnded(slot);
                throw e;
            }
            post(slot, segments, 0);
            IOException failure = sends.takeFailure();
            if (failure != null) { // a file region failed after the bytes just sent: Netty fails what is left
                throw failure;
            }
        }
        return true;
    }

    /** Sends the FIN once, as soon as a send buffer and a credit allow; call again when {@code writable()}. */
    void shutdownOutput() throws IOException {
        if (!finSent && sends.hasFree() && credits >= 1) {
            finSent = true;
            int slot = sends.take();
            post(slot, sends.headerOnly(slot), FIN);
        }
    }

    /**
     * Returns the credits owed in a header-only message once half the receive depth is owed and nothing else carries
     * them; called after the channel delivered what arrived and after a blocked write resumed.
     */
    void returnCredits() throws IOException {
        if (owed >= creditThreshold && sends.hasFree() && credits >= 1 && !closing && !closed) {
            int slot = sends.take();
            post(slot, sends.headerOnly(slot), 0);
        }
    }

    /** Sends {@code segments}, the message in {@code slot}, with the credits owed and {@code flags} in its header. */
    private void post(int slot, ScatterGatherList segments, int flags) throws IOException {
        sends.putHeader(slot, owed | flags);
        owed = 0;
        credits--;
        Status status = connection.send(segments, OperationFlags.NONE, this, SEND | slot);
        if (status != Status.SUCCESS) {
            credits++;
            owed = sends.header(slot) & CREDIT_MASK; // nothing left: the credits are still owed
            sendEnded(slot); // a close waiting for this slot goes on
            throw new IOException("RDMA send refused: " + status, new RdmaException(status, "send refused"));
        }
    }

    /**
     * Copies as much of the oldest waiting message as {@code buf} has room for; the message's receive is posted
     * again once all of it was taken. Returns the bytes copied; call only while {@link #hasReady()}.
     */
    int readInto(ByteBuf buf) {
        int slot = readySlots[readyHead];
        int length = readyLengths[readyHead];
        int n = Math.min(buf.writableBytes(), length - readOffset);
        receives.copyTo(buf, slot, HEADER_BYTES + readOffset, n);
        readOffset += n;
        if (readOffset == length) {
            readOffset = 0;
            readyHead = (readyHead + 1) % readySlots.length;
            readyCount--;
            repost(slot);
        }
        return n;
    }

    /** Drops what waits for delivery (input shut down), posting its receives again so the peer's credits return. */
    void discardReady() {
        readOffset = 0;
        while (readyCount > 0) {
            int slot = readySlots[readyHead];
            readyHead = (readyHead + 1) % readySlots.length;
            readyCount--;
            repost(slot);
        }
    }

    /** Bytes sent from where the application's writes lay, without a copy; on the loop's thread. */
    long bytesSentInPlace() {
        return sends.bytesSentInPlace();
    }

    boolean hasReady() {
        return readyCount > 0;
    }

    /**
     * The channel calls this every {@link #PROBE_INTERVAL_MILLIS}. When nothing came from the peer since the last
     * call, it READs the peer's probe target: a peer that owes this side nothing (a call waiting for its answer, a
     * stream waiting for its next message) then owes a Read Response, so the runtime's liveness deadline (soft), or
     * the transport's retry budget (verbs), ends the connection once the peer is gone silent: the READ fails with
     * IO_TIMEOUT and the channel closes with an IOException. Without it, a link cut without a reset would leave such
     * a channel open for as long as the kernel's TCP retransmits, or for ever behind a middlebox that still answers.
     */
    void probe() {
        if (heard || probing || peerProbe == null || closing || closed) {
            heard = false;
            return;
        }
        if (connection.read(probeSink, peerProbe, 0, OperationFlags.NONE, this, PROBE) == Status.SUCCESS) {
            probing = true; // refused (the connection is ending, the initiator queue full of the application's): skip
        }
    }

    /** Whether the peer shut its output and every byte before that was taken. */
    boolean isInputEnded() {
        return finReceived && readyCount == 0;
    }

    @Override
    public void completed(long context, int bytes) {
        checkThread();
        if (closed) {
            return;
        }
        if ((context & PROBE) != 0) {
            probing = false;
            heard = true;
            return;
        }
        int slot = (int) context;
        if ((context & SEND) != 0) {
            sendEnded(slot); // on soft the socket took it: no word from the peer
            if (!closing) {
                events.writable();
            }
            return;
        }
        heard = true; // a receive: the peer lives
        if (bytes < HEADER_BYTES) {
            events.failed(new IOException("the peer sent a " + bytes + "-byte message; a stream message has a "
                    + HEADER_BYTES + "-byte header"));
            return;
        }
        int header = receives.header(slot);
        int returned = header & CREDIT_MASK;
        if (returned > 0) {
            if (credits + returned > peerReceiveDepth) {
                events.failed(new IOException("the peer returned " + returned + " credits with " + credits
                        + " held of the " + peerReceiveDepth + " it granted"));
                return;
            }
            credits += returned;
        }
        int length = bytes - HEADER_BYTES;
        if (length > 0 && !finReceived) {
            int tail = (readyHead + readyCount) % readySlots.length;
            readySlots[tail] = slot;
            readyLengths[tail] = length;
            readyCount++;
        } else {
            repost(slot);
        }
        if ((header & FIN) != 0) {
            finReceived = true;
        }
        events.readable();
        if (returned > 0) {
            events.writable();
        }
    }

    @Override
    public void failed(long context, RdmaException error) {
        checkThread();
        if ((context & PROBE) != 0) {
            probing = false;
        } else if ((context & SEND) != 0) {
            sendEnded((int) context);
        }
        if (!closed && !closing && error.status() != Status.CANCELED) { // CANCELED: the connection ended
            events.failed(asIoException(error));
        }
    }

    /**
     * The connection's failure as a socket's would surface: an IOException, which Netty's and gRPC's handlers treat as
     * the transport's (gRPC ends the calls UNAVAILABLE; an RdmaException, a RuntimeException, would end them UNKNOWN).
     */
    private static IOException asIoException(RdmaException error) {
        return new IOException("the RDMA connection failed: " + error.getMessage(), error);
    }

    private void checkThread() {
        if (!loop.isExecutorThread(Thread.currentThread())) { // the runtime's poller reports it once
            throw new IllegalStateException("an RDMA channel's completion ran on " + Thread.currentThread().getName()
                    + ", not its event loop: the runtime of an RdmaIoHandler must have no completionExecutor");
        }
    }

    private void sendEnded(int slot) {
        sends.ended(slot);
        if (closing && !closed && sends.allFree()) {
            disconnect();
        }
    }

    private void repost(int slot) {
        if (closed) {
            return;
        }
        Status status = receives.post(slot);
        if (status == Status.SUCCESS) {
            owed++;
        } else if (connection.isConnected()) {
            events.failed(asIoException(new RdmaException(status, "posting the byte stream's receive again failed")));
        }
    }

    /**
     * Disconnects once every SEND in flight has been handed to the transport (a graceful disconnect cancels what is
     * still outstanding, and the bytes a channel wrote before closing must reach the peer, as a socket's do), then
     * releases the buffers when the disconnect completes. The SENDs end either way: handed over, or failed when the
     * connection ends, which the runtime's liveness timeout bounds. Idempotent.
     */
    void close() {
        if (closing || closed) {
            return;
        }
        closing = true;
        if (sends.allFree()) {
            disconnect();
        }
    }

    private void disconnect() {
        closed = true;
        connection.disconnect().whenComplete((ignored, error) -> release());
    }

    private void release() {
        receives.release();
        sends.release();
    }
}
