package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A peer for librdmacm's example programs {@code rdma_server} and {@code rdma_client} (rdmacm-utils): connect
 * without private data, then one 16-byte Send each way, then disconnect. Run against Linux soft-iWARP (siw) it
 * proves the soft provider's MPA setup, CRC and DDP Send framing on the wire, in both roles.
 *
 * <pre>
 *   java ... RdmaCmExamplePeer client HOST [PORT]   # against: rdma_server [-p PORT]
 *   java ... RdmaCmExamplePeer server [PORT]        # against: rdma_client -s HOST [-p PORT]
 * </pre>
 * Exits 0 after a clean exchange, 1 otherwise. Port 7471 is the examples' default.
 */
public final class RdmaCmExamplePeer {
    private static final int MESSAGE = 16;

    private RdmaCmExamplePeer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || (!args[0].equals("client") && !args[0].equals("server"))
                || (args[0].equals("client") && args.length < 2)) {
            System.err.println("usage: RdmaCmExamplePeer client HOST [PORT] | server [PORT]");
            System.exit(2);
        }
        boolean client = args[0].equals("client");
        int port = Integer.parseInt(args.length > (client ? 2 : 1) ? args[client ? 2 : 1] : "7471");
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider(System.getProperty("provider", "soft")).build()) {
            MemoryRegion rx = runtime.register(ByteBuffer.allocateDirect(MESSAGE), Access.LOCAL_WRITE);
            MemoryRegion tx = runtime.register(ByteBuffer.allocateDirect(MESSAGE), Access.LOCAL_WRITE);
            tx.buffer().put("rdmafutures soft".getBytes(StandardCharsets.US_ASCII));
            RdmaConnection connection;
            if (client) {
                InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[1]), port);
                connection = runtime.connector().connect(server).start().get(20, TimeUnit.SECONDS);
            } else {
                RdmaListener listener = runtime.listen(new InetSocketAddress(port));
                System.out.println("listening on " + listener.localAddress());
                connection = listener.next().get(60, TimeUnit.SECONDS).accept().get(20, TimeUnit.SECONDS);
            }
            System.out.println("connected " + connection.localAddress() + " -> " + connection.remoteAddress()
                    + " " + connection.connectionData());
            CompletableFuture<Completion> received = connection.receive(rx.slice(0, MESSAGE));
            if (client) {
                connection.send(tx.slice(0, MESSAGE), OperationFlags.NONE).get(20, TimeUnit.SECONDS);
                System.out.println("received " + received.get(20, TimeUnit.SECONDS).bytes() + " bytes");
            } else {
                System.out.println("received " + received.get(20, TimeUnit.SECONDS).bytes() + " bytes");
                connection.send(tx.slice(0, MESSAGE), OperationFlags.NONE).get(20, TimeUnit.SECONDS);
            }
            connection.disconnect().get(20, TimeUnit.SECONDS);
            System.out.println("exchange complete");
        }
    }
}
