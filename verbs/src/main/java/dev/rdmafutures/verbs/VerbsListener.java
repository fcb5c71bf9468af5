package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import dev.rdmafutures.spi.BoundListener;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A listening CM id with its own event channel: ids spawned by its requests report on that channel until the loop
 * that listens moves each to the loop the device deals it to ({@code rdma_migrate_id}), which then owns it. Closing
 * before {@code listen} hands it to a loop destroys it at once; after, the loop destroys it on its thread.
 */
final class VerbsListener implements BoundListener {
    private final RdmaEventChannel channel;
    private final RdmaCmId id;
    private final InetSocketAddress address;
    private final AtomicBoolean closed = new AtomicBoolean();
    private VerbsEventLoop loop;

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
        VerbsDevice.destroyQuietly(channel);
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
