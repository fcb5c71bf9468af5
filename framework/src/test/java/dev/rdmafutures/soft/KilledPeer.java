package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The peer {@link SoftKilledPeerTest} kills with SIGKILL: a soft runtime in a JVM of its own that accepts
 * connections with deep queues and exposes one readable region; prints {@code READY port token} and serves until
 * it is killed.
 */
public final class KilledPeer {
    private KilledPeer() {
    }

    public static void main(String[] args) throws Exception {
        RdmaRuntime runtime = RdmaRuntime.builder().build();
        MemoryRegion region = runtime.register(ByteBuffer.allocateDirect(1 << 20), Access.REMOTE_READ);
        RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(request -> request.withQueueDepths(16, 16).withReadLimits(128, 128).accept());
        System.out.println("READY " + listener.localAddress().getPort() + " " + region.token());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
