package dev.rdmafutures.netty;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The byte stream's receives: one registered region cut into {@code receiveDepth} buffers of {@code bufferSize}
 * bytes, each posted again once its message was taken.
 *
 * <p>Where a Send that finds no receive ends the connection (iWARP, whose adapters report
 * {@link AdapterInfo#sendWaitsForPeerReceive()} false), the buffers are posted before the connect or accept, on a
 * shared receive queue of the stream's own that the connection is created with ({@link #beforeConnection}): the peer
 * may send the moment its own side is established, before this side has even learned that its side is, and Linux siw
 * terminates a connection whose first Send finds no receive. Elsewhere they are posted on the connection's own receive
 * queue once it is up ({@link #afterConnection}), which costs no queue: RoCE and InfiniBand retry a Send that finds no
 * receive (RNR), and soft holds it.
 *
 * <p>Confined to the event loop that owns the connection; the queue's completions run on it too.
 */
final class ReceiveRing implements SharedReceiveCallback {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiveRing.class);

    private final MemoryRegion region;
    /** Absolute reads of headers: their bounds never change. */
    private final ByteBuffer headers;
    /** The region as a Netty buffer that never frees its memory, for copies into buffers without an address. */
    private final ByteBuf bytes;
    /**
     * The region's address (0: none, without {@code Unsafe}): copies into a buffer with a memory address go address
     * to address, since Netty's adaptive buffers slice a new {@code ByteBuffer} for every other copy.
     */
    private final long address;
    private final RegionSlice[] slots;
    private final int bufferSize;
    /** The stream's own queue, its receives posted before the connection existed; null: the connection's queue. */
    private final SharedReceiveQueue queue;
    private RdmaConnection connection;
    private CompletionCallback owner;
    /**
     * Messages the queue took before the stream could take them: their slots and sizes, in arrival order. Kept from
     * before the stream owns the ring until the task that reports them has run, so that a message that comes in
     * between cannot overtake them. Each slot is taken at most once until posted again, so they never hold more than
     * the depth.
     */
    private final int[] earlySlots;
    private final int[] earlyBytes;
    private int earlyCount;
    /** Set from the attach until the early messages were reported: what arrives meanwhile queues behind them. */
    private boolean reportPending;

    private ReceiveRing(RdmaRuntime runtime, StreamSettings local, SharedReceiveQueue queue) {
        this.bufferSize = local.bufferSize();
        this.queue = queue;
        int depth = local.receiveDepth();
        this.region = runtime.register(ByteBuffer.allocateDirect(depth * bufferSize), Access.LOCAL_WRITE);
        this.headers = region.buffer().duplicate();
        this.bytes = Unpooled.wrappedBuffer(region.buffer().duplicate().clear());
        this.address = SendBuffers.copyAddress(bytes);
        this.slots = new RegionSlice[depth];
        for (int i = 0; i < depth; i++) {
            slots[i] = region.slice(i * bufferSize, bufferSize);
        }
        this.earlySlots = queue == null ? null : new int[depth];
        this.earlyBytes = queue == null ? null : new int[depth];
    }

    /**
     * Whether a stream over {@code adapter} posts its receives before connecting: forced by {@code options}, or where
     * a Send that finds no receive ends the connection and the adapter has a shared receive queue deep enough.
     */
    static boolean postsBeforeConnection(AdapterInfo adapter, RdmaOptions options, StreamSettings local) {
        if (options.prepostedReceives()) {
            return true;
        }
        if (adapter.sendWaitsForPeerReceive()) {
            return false;
        }
        if (adapter.maxSharedReceiveQueueDepth() < local.receiveDepth()) {
            LOG.debug("{} ends a connection whose Send finds no receive, and its shared receive queues hold {}, not "
                    + "the stream's {}: the stream's first messages may race its receives", adapter.deviceName(),
                    adapter.maxSharedReceiveQueueDepth(), local.receiveDepth());
            return false;
        }
        return true;
    }

    /**
     * Registers the buffers and posts every receive on a new shared receive queue, to be given to the connect or
     * accept ({@link #queue()}).
     *
     * @throws RdmaException when the buffers cannot be registered or the queue made or filled (all released)
     */
    static ReceiveRing beforeConnection(RdmaRuntime runtime, StreamSettings local) {
        SharedReceiveQueue queue = runtime.sharedReceiveQueue(local.receiveDepth(), 1);
        ReceiveRing ring;
        try {
            ring = new ReceiveRing(runtime, local, queue);
        } catch (RuntimeException | OutOfMemoryError e) {
            queue.close();
            throw e;
        }
        for (int i = 0; i < ring.slots.length; i++) {
            Status status = queue.receive(ring.slots[i], ring, i);
            if (status != Status.SUCCESS) {
                ring.release();
                throw new RdmaException(status, "posting the byte stream's receive " + i + " failed");
            }
        }
        return ring;
    }

    /** Registers the buffers, to be posted on the connection's receive queue when a stream takes the ring. */
    static ReceiveRing afterConnection(RdmaRuntime runtime, StreamSettings local) {
        return new ReceiveRing(runtime, local, null);
    }

    /** The queue the connection must be created with; null when its receives go on the connection's own queue. */
    SharedReceiveQueue queue() {
        return queue;
    }

    /**
     * Hands the ring to its stream: posts the receives on {@code connection} unless they already wait on the queue,
     * and reports what the queue took before now to {@code owner} in a task on {@code loop}, after the caller has set
     * itself up.
     *
     * @throws RdmaException when a receive cannot be posted (the caller releases the ring)
     */
    void attach(RdmaConnection connection, CompletionCallback owner, Executor loop) {
        this.connection = connection;
        this.owner = owner;
        if (queue == null) {
            for (int i = 0; i < slots.length; i++) {
                Status status = post(i);
                if (status != Status.SUCCESS) {
                    throw new RdmaException(status, "posting the byte stream's receive " + i + " failed");
                }
            }
        } else if (earlyCount > 0) {
            reportPending = true;
            loop.execute(this::reportEarly);
        }
    }

    private void reportEarly() {
        int count = earlyCount;
        earlyCount = 0;
        reportPending = false;
        for (int i = 0; i < count; i++) { // what the owner posts again completes in a later poll, never in here
            owner.completed(earlySlots[i], earlyBytes[i]);
        }
    }

    /** Posts the receive of {@code slot} again; the outcome goes to the owner with {@code slot} as its context. */
    Status post(int slot) {
        return queue != null ? queue.receive(slots[slot], this, slot) : connection.receive(slots[slot], owner, slot);
    }

    int depth() {
        return slots.length;
    }

    /** The stream header at the front of {@code slot}'s message. */
    int header(int slot) {
        return headers.getInt(slot * bufferSize);
    }

    /** Appends {@code n} bytes of {@code slot}'s buffer from {@code offset} to {@code buf}. */
    void copyTo(ByteBuf buf, int slot, int offset, int n) {
        int start = slot * bufferSize + offset;
        if (address != 0 && buf.hasMemoryAddress()) {
            int writerIndex = buf.writerIndex();
            PlatformDependent.copyMemory(address + start, buf.memoryAddress() + writerIndex, n);
            buf.writerIndex(writerIndex + n);
        } else {
            buf.writeBytes(bytes, start, n);
        }
    }

    @Override
    public void received(long context, RdmaConnection from, int length) {
        if (owner != null && !reportPending) {
            owner.completed(context, length);
        } else {
            earlySlots[earlyCount] = (int) context;
            earlyBytes[earlyCount++] = length;
        }
    }

    @Override
    public void failed(long context, RdmaException error) {
        if (owner != null) {
            owner.failed(context, error);
        } // before a stream owns the ring only a release fails receives: nobody waits for them
    }

    /**
     * Closes {@code connection}, which no stream took, and releases {@code receives} (null: none made yet) once it has
     * ended: its queue cannot be destroyed before.
     */
    static void closeUnused(RdmaConnection connection, ReceiveRing receives) {
        connection.close();
        if (receives != null) {
            connection.disconnected().whenComplete((reason, error) -> receives.release());
        }
    }

    /**
     * Destroys the queue, if any, then deregisters the buffers. Call once the connection has ended or was never made:
     * a queue an established connection still uses cannot be destroyed; then both are left to the runtime's close
     * (deregistering buffers that a connection may still fill would fail it), and that is logged.
     */
    void release() {
        if (queue != null) {
            try {
                queue.close();
            } catch (RdmaException e) {
                LOG.warn("a byte stream's receive queue is still in use and stays until its runtime closes", e);
                return;
            }
        }
        region.close();
    }
}
