package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.RdmaCmId;
import dev.rdmafutures.spi.SharedAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A shared local endpoint: an anchor CM id bound with REUSEADDR holds the port; connects from the endpoint bind
 * the same address with REUSEADDR too, which the kernel allows while nothing listens on it.
 */
final class VerbsSharedAddress implements SharedAddress {
    private final InetSocketAddress address;
    private final RdmaCmId anchor;
    private final Runnable onClose;
    private final AtomicBoolean closed = new AtomicBoolean();

    VerbsSharedAddress(InetSocketAddress address, RdmaCmId anchor, Runnable onClose) {
        this.address = address;
        this.anchor = anchor;
        this.onClose = onClose;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            VerbsDevice.destroyQuietly(anchor);
            onClose.run();
        }
    }
}
