package dev.rdmafutures.soft;

import dev.rdmafutures.spi.SharedAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/** A port held by an unconnected anchor socket until the shared endpoint closes. */
final class SoftSharedAddress implements SharedAddress {
    private final InetSocketAddress address;
    private final SocketChannel anchor;
    private final Runnable onClose;
    private final AtomicBoolean closed = new AtomicBoolean();

    SoftSharedAddress(InetSocketAddress address, SocketChannel anchor, Runnable onClose) {
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
            SoftDevice.closeQuietly(anchor);
            onClose.run();
        }
    }
}
