package dev.rdmafutures.soft;

import dev.rdmafutures.Access;
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
 * What a small soft application does, in a JVM of its own for {@link SoftJvmWarningsTest}: a runtime connects to
 * itself over loopback, reads a peer's memory with one RDMA READ, prints {@code READ n bytes: text}, and closes.
 */
public final class SoftReadOnce {
    private SoftReadOnce() {
    }

    public static void main(String[] args) throws Exception {
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider("soft").build()) {
            RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<RdmaConnection> accepted = listener.next().thenCompose(request -> request.accept());
            RdmaConnection client = runtime.connector().connect(listener.localAddress()).start()
                    .get(30, TimeUnit.SECONDS);
            accepted.get(30, TimeUnit.SECONDS);
            byte[] text = "read without a JVM warning".getBytes(StandardCharsets.UTF_8);
            MemoryRegion exposed = runtime.register(ByteBuffer.allocateDirect(64).put(text).flip(),
                    Access.REMOTE_READ);
            MemoryRegion sink = runtime.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
            int bytes = client.read(sink.slice(0, text.length), exposed.remote(), 0, OperationFlags.NONE)
                    .get(30, TimeUnit.SECONDS).bytes();
            byte[] read = new byte[bytes];
            sink.buffer().get(0, read);
            System.out.println("READ " + bytes + " bytes: " + new String(read, StandardCharsets.UTF_8));
        }
    }
}
