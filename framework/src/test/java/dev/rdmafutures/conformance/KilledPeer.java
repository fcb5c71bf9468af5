package dev.rdmafutures.conformance;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

/**
 * The peer {@link AbstractKilledPeerTest} kills with SIGKILL: a runtime in a JVM of its own that accepts connections
 * with deep read limits and exposes one readable region of {@value #REGION} bytes; prints
 * {@code READY port address token} and serves until it is killed. Usage: {@code KilledPeer PROVIDER ADDRESS [DEVICE]}.
 */
public final class KilledPeer {
    /** The region's size. */
    static final int REGION = 1 << 20;

    private KilledPeer() {
    }

    public static void main(String[] args) throws Exception {
        RdmaRuntime.Builder builder = RdmaRuntime.builder().provider(args[0]);
        if (args.length > 2) {
            builder.providerOption(args[0] + ".device", args[2]);
        }
        RdmaRuntime runtime = builder.build();
        MemoryRegion region = runtime.register(ByteBuffer.allocateDirect(REGION), Access.REMOTE_READ);
        RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getByName(args[1]), 0));
        listener.onRequest(request -> request.withQueueDepths(16, 16).withReadLimits(128, 128).accept());
        System.out.println("READY " + listener.localAddress().getPort() + " " + region.remote().address() + " "
                + region.token());
        System.out.flush();
        new CountDownLatch(1).await(); // never counted down: the process serves until the test kills it
    }
}
