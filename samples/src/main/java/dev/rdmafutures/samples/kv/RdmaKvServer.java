package dev.rdmafutures.samples.kv;

import dev.rdmafutures.Access;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA key-value server. Values live in a registered index, or for large ones in a registered heap beside it
 * ({@link KvStore}); every client reads them with one-sided READs, so GETs never reach this code. PUTs arrive as
 * Sends into one {@link SharedReceiveQueue} that all connections share: each receive scatters a request header and
 * its value into two buffers, the value is applied to the table, the receive is posted again at once, and a small
 * Send acknowledges it ({@link AckSender}). The queue's limit notification reports when it runs low.
 */
final class RdmaKvServer implements AutoCloseable, SharedReceiveCallback {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaKvServer.class);

    private final RdmaRuntime runtime;
    private final KvStore store;
    private final SharedReceiveQueue queue;
    private final MemoryRegion headers;
    private final MemoryRegion values;
    private final ByteBuffer headerView;
    private final ByteBuffer valueView;
    private final ScatterGatherList[] receives;
    private final int maxValue;
    private final byte[] bootstrap;
    private final RdmaListener listener;
    private final Map<RdmaConnection, AckSender> ackers = new ConcurrentHashMap<>();
    private final AtomicLong lowWater = new AtomicLong();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final int threshold;

    /**
     * Serves {@code store} (registered with {@code runtime} here), creates a shared receive queue of
     * {@code queueDepth} receives (capped to the adapter's maximum) and listens on {@code address}.
     */
    RdmaKvServer(RdmaRuntime runtime, InetSocketAddress address, KvStore store, int queueDepth) {
        this.runtime = runtime;
        this.store = store;
        this.maxValue = store.layout().maxValue();
        RemoteBuffer index = runtime.register(store.index(), Access.REMOTE_READ).remote();
        RemoteBuffer heap = store.heap() == null ? new RemoteBuffer(0, 0, 0)
                : runtime.register(store.heap(), Access.REMOTE_READ).remote();
        int most = runtime.adapterInfo().maxSharedReceiveQueueDepth();
        if (most > 0 && most < queueDepth) {
            LOG.warn("the adapter's shared receive queues hold at most {} receives, fewer than the {} asked for",
                    most, queueDepth);
        }
        // An adapter without shared receive queues refuses here, with its reason.
        this.queue = runtime.sharedReceiveQueue(most > 0 ? Math.min(queueDepth, most) : queueDepth, 2);
        this.headers = runtime.register(ByteBuffer.allocateDirect(queue.depth() * Frames.REQUEST_BYTES),
                Access.LOCAL_WRITE);
        this.values = runtime.register(ByteBuffer.allocateDirect(queue.depth() * maxValue), Access.LOCAL_WRITE);
        this.headerView = headers.buffer();
        this.valueView = values.buffer();
        this.receives = new ScatterGatherList[queue.depth()];
        for (int i = 0; i < receives.length; i++) {
            receives[i] = new ScatterGatherList(2).add(headers, i * Frames.REQUEST_BYTES, Frames.REQUEST_BYTES)
                    .add(values, i * maxValue, maxValue);
            Status status = queue.receive(receives[i], this, i);
            if (status != Status.SUCCESS) {
                throw new RdmaException(status, "cannot post receive " + i + " of the shared receive queue: refused "
                        + "with " + status);
            }
        }
        this.threshold = Math.max(1, queue.depth() / 4);
        armed.set(true);
        armLowWater();
        this.bootstrap = new Bootstrap(store.layout().capacity(), maxValue, index, heap).encode();
        this.listener = runtime.listen(address);
        listener.onRequest(this::answer);
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    int queueDepth() {
        return queue.depth();
    }

    /** How often the shared receive queue fell below a quarter of its depth. */
    long lowWaterNotifications() {
        return lowWater.get();
    }

    private void answer(ConnectionRequest request) {
        Optional<Integer> window = Bootstrap.window(request.privateData());
        if (window.isEmpty()) {
            request.reject("not a KV client".getBytes(StandardCharsets.UTF_8));
            return;
        }
        // Acks are this side's only initiator operations: a client has at most its window of PUTs outstanding.
        request.withSharedReceiveQueue(queue).withQueueDepths(2 * window.get(), 1).withMaxSge(1, 1)
                .withReadLimits(window.get(), 1).withPrivateData(bootstrap).accept()
                .whenComplete((connection, error) -> {
                    if (error != null) {
                        LOG.warn("accepting {} failed: {}", request.remoteAddress(), error.toString());
                    }
                });
    }

    @Override
    public void received(long context, RdmaConnection connection, int bytes) {
        int slot = (int) context;
        int at = slot * Frames.REQUEST_BYTES;
        int op = Frames.op(headerView, at);
        int length = Frames.requestLength(headerView, at);
        int status = Frames.BAD_REQUEST;
        long version = 0;
        if (op == Frames.PUT && length >= 0 && bytes == Frames.REQUEST_BYTES + length) {
            long result = store.put(Frames.requestKey(headerView, at), valueView, slot * maxValue, length,
                    Frames.requestCrc(headerView, at));
            status = result < 0 ? (int) -result : Frames.OK;
            version = Math.max(result, 0);
        }
        int requestId = Frames.requestId(headerView, at);
        replenish(slot);
        if (!armed.get() && queue.postedReceives() >= threshold && armed.compareAndSet(false, true)) {
            armLowWater(); // armed again only once the queue recovered, so a low queue reports once
        }
        acker(connection).ack(requestId, status, version);
    }

    @Override
    public void failed(long context, RdmaException error) {
        if (error.status() == Status.CANCELED) {
            LOG.debug("receive {} cancelled: the queue closed", context);
        } else {
            LOG.warn("receive {} failed: {}", context, error.toString());
            replenish((int) context);
        }
    }

    private void replenish(int slot) {
        Status status = queue.receive(receives[slot], this, slot);
        if (status != Status.SUCCESS) { // typically the queue closed meanwhile
            LOG.debug("receive {} not posted again: refused with {}", slot, status);
        }
    }

    private AckSender acker(RdmaConnection connection) {
        return ackers.computeIfAbsent(connection, c -> {
            int window = Bootstrap.window(c.connectionData().peerPrivateData()).orElse(1);
            AckSender sender = new AckSender(runtime, c, 2 * window);
            c.disconnected().whenComplete((reason, error) -> ackers.remove(c).close());
            return sender;
        });
    }

    private void armLowWater() {
        queue.notifyBelow(threshold).whenComplete((remaining, error) -> {
            if (error == null) {
                if (lowWater.incrementAndGet() == 1) {
                    LOG.info("the shared receive queue ran low: {} of {} receives posted (counted from now on)",
                            remaining, queue.depth());
                } else {
                    LOG.debug("the shared receive queue ran low: {} of {} receives posted", remaining, queue.depth());
                }
                armed.set(false);
            }
        });
    }

    /** Closes the runtime: connections end, the queue and every region go with it. */
    @Override
    public void close() {
        listener.close();
        runtime.close();
    }
}
