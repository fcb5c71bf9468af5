package dev.rdmafutures.soft;

import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.ListenEvents;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening TCP socket. It accepts on the loop it was handed to and passes each accepted socket to the next
 * loop round robin, where the MPA exchange runs; to its own when that loop's poller was stopped.
 */
final class SoftListener implements BoundListener, SelectionHandler {
    private final SoftDevice device;
    private final ServerSocketChannel channel;
    private final InetSocketAddress localAddress;
    private SoftEventLoop loop;
    private ListenEvents events;

    SoftListener(SoftDevice device, ServerSocketChannel channel) throws IOException {
        this.device = device;
        this.channel = channel;
        this.localAddress = (InetSocketAddress) channel.getLocalAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    void startAccepting(SoftEventLoop owner, ListenEvents listenEvents) {
        this.loop = owner;
        this.events = listenEvents;
        try {
            owner.register(channel, SelectionKey.OP_ACCEPT, this);
        } catch (ClosedChannelException e) {
            // Closed before it started: nothing to accept.
            owner.deregister(this);
        }
    }

    @Override
    public void onReady(SelectionKey key) {
        SocketChannel accepted;
        try {
            while ((accepted = channel.accept()) != null) {
                handOff(accepted);
            }
        } catch (IOException e) {
            if (channel.isOpen()) {
                loop.poller().recordError("accept on " + localAddress, e);
            } else {
                loop.deregister(this);
            }
        }
    }

    private void handOff(SocketChannel accepted) {
        SoftEventLoop target = device.nextLoop();
        ListenEvents sink = events;
        if (target == loop || !target.poller().execute(() -> target.adoptPassive(accepted, sink))) {
            loop.adoptPassive(accepted, sink); // that loop's poller was stopped: this one, which runs, takes it
        }
    }

    @Override
    public void onLoopClosed() {
        close();
    }

    @Override
    public void close() {
        SoftDevice.closeQuietly(channel);
    }
}
