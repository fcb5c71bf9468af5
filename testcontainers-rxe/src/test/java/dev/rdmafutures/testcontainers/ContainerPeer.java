package dev.rdmafutures.testcontainers;

import dev.rdmafutures.Access;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The framework peer {@link RxeContainerVmTest} runs inside an {@link RxeContainer}: {@code serve DEVICE ADDRESS
 * PORT} listens with the verbs provider, hands the one connection that comes the token of a 64 KiB region filled
 * with {@link #pattern} as accept private data, and exits when the peer disconnects, printing {@code served}.
 */
public final class ContainerPeer {
    static final int SIZE = 64 * 1024;

    private ContainerPeer() {
    }

    static byte pattern(int i) {
        return (byte) (i * 31 + 7);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !args[0].equals("serve")) {
            throw new IllegalArgumentException("usage: serve DEVICE ADDRESS PORT");
        }
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider("verbs").providerOption("verbs.device", args[1])
                .build()) {
            MemoryRegion region = runtime.register(ByteBuffer.allocateDirect(SIZE), Access.REMOTE_READ);
            for (int i = 0; i < SIZE; i++) {
                region.buffer().put(i, pattern(i));
            }
            RdmaListener listener = runtime.listen(
                    new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3])));
            System.out.println("listening on " + listener.localAddress() + " (" + runtime.adapterInfo() + ")");
            ConnectionRequest request = listener.next().get(60, TimeUnit.SECONDS);
            RdmaConnection connection = request.withPrivateData(region.remote().encode()).accept()
                    .get(20, TimeUnit.SECONDS);
            System.out.println("peer disconnected: " + connection.disconnected().get(60, TimeUnit.SECONDS));
            System.out.println("served");
        }
    }
}
