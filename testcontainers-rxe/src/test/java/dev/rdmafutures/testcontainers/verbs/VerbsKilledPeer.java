package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The peer {@link AbstractKilledPeerVmTest} kills with SIGKILL: a verbs runtime on one device in a JVM of its own
 * that accepts connections with deep read limits and exposes one readable region; prints {@code READY port address token}
 * and serves until it is killed. Usage: {@code VerbsKilledPeer device address}.
 */
public final class VerbsKilledPeer {
    /** The region's size. */
    static final int REGION = 1 << 20;

    private VerbsKilledPeer() {
    }

    public static void main(String[] args) throws Exception {
        RdmaRuntime runtime = new VerbsFixture(args[0]).runtimeBuilder().build();
        MemoryRegion region = runtime.register(ByteBuffer.allocateDirect(REGION), Access.REMOTE_READ);
        RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getByName(args[1]), 0));
        listener.onRequest(request -> request.withQueueDepths(16, 16).withReadLimits(128, 128).accept());
        System.out.println("READY " + listener.localAddress().getPort() + " " + region.remote().address() + " "
                + region.token());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
