package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening CM id with its own event channel: ids spawned by its requests report on that channel until the loop
 * the device deals each to moves it to its own ({@code rdma_migrate_id}), and then owns it. Closing before
 * {@code listen} hands it to a loop destroys it at once; after, the loop destroys it on its thread. The channel goes
 * with the loop that reads it; another loop may still hold a request whose id is on it, so the moves and destroys of
 * such ids and the channel's own destruction take turns ({@link #moveRequest}, {@link #destroyRequest},
 * {@link #destroyChannel}): librdmacm reaches the channel through the id.
 */
final class VerbsListener implements BoundListener {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsListener.class);
    private static final int EBADF = 9;
    private final RdmaEventChannel channel;
    private final RdmaCmId id;
    private final InetSocketAddress address;
    private final AtomicBoolean closed = new AtomicBoolean();
    private VerbsEventLoop loop;
    private final Object channelLock = new Object();
    /** Guarded by {@link #channelLock}: the kernel destroyed every id still on the channel with it. */
    private boolean channelDestroyed;

    VerbsListener(RdmaEventChannel channel, RdmaCmId id, InetSocketAddress address) {
        this.channel = channel;
        this.id = id;
        this.address = address;
    }

    RdmaEventChannel channel() {
        return channel;
    }

    RdmaCmId id() {
        return id;
    }

    /** Hands the listener to {@code owner}'s thread; false if it was closed first (then it is destroyed here). */
    boolean attach(VerbsEventLoop owner) {
        synchronized (this) {
            if (!closed.get()) {
                loop = owner;
                return true;
            }
        }
        destroy();
        return false;
    }

    void destroy() {
        VerbsDevice.destroyQuietly(id);
        destroyChannel();
    }

    /**
     * Moves the request id {@code requestId}, on this listener's channel, to {@code toChannel}; returns 0 or a
     * negative errno ({@code -EBADF} once the channel is gone, and the id with it).
     */
    int moveRequest(long requestId, long toChannel) {
        synchronized (channelLock) {
            return channelDestroyed ? -EBADF : NativeVerbs.migrateId(requestId, toChannel);
        }
    }

    /** Destroys the request id {@code requestId}, still on this listener's channel, unless the channel took it along. */
    void destroyRequest(VerbsDevice device, long requestId) {
        synchronized (channelLock) {
            if (!channelDestroyed) {
                try {
                    VerbsDevice.destroyQuietly(device.wrapRequestId(requestId, channel));
                } catch (IOException e) {
                    LOG.debug("destroying the connect request {} failed", requestId, e);
                }
            }
        }
    }

    /** Destroys the channel, once; requests whose ids are still on it go with it. */
    void destroyChannel() {
        synchronized (channelLock) {
            if (!channelDestroyed) {
                channelDestroyed = true;
                VerbsDevice.destroyQuietly(channel);
            }
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public void close() {
        VerbsEventLoop owner;
        synchronized (this) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            owner = loop;
        }
        if (owner == null) {
            destroy();
        } else if (!owner.execute(() -> owner.stopListening(this))) {
            owner.stopListening(this); // the loop is gone; nothing else touches the id any more
        }
    }
}
