package com.example;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Connects to itself and reads a peer's memory with one RDMA READ. Usage: {@code Hello [provider [address]]}; by
 * default the soft provider over loopback, or for instance {@code Hello verbs 10.0.2.15} on an RDMA device with that
 * address (the verbs provider needs {@code rdmafutures-verbs} on the class path: {@code mvn -P verbs}).
 */
public final class Hello {
    public static void main(String[] args) throws Exception {
        String provider = args.length > 0 ? args[0] : "soft";
        String address = args.length > 1 ? args[1] : "127.0.0.1";
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider(provider).build()) {
            RdmaListener listener = runtime.listen(new InetSocketAddress(address, 0));
            CompletableFuture<RdmaConnection> accepted = listener.next().thenCompose(request -> request.accept());
            RdmaConnection client = runtime.connector().connect(listener.localAddress()).start().get();
            accepted.get();

            byte[] greeting = "hello from the peer's memory".getBytes(StandardCharsets.UTF_8);
            MemoryRegion exposed = runtime.register(ByteBuffer.allocateDirect(64).put(greeting).flip(),
                    Access.REMOTE_READ);
            MemoryRegion sink = runtime.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
            int bytes = client.read(sink.slice(0, greeting.length), exposed.remote(), 0, OperationFlags.NONE)
                    .get().bytes();

            byte[] read = new byte[bytes];
            sink.buffer().get(0, read);
            String text = new String(read, StandardCharsets.UTF_8);
            System.out.println("READ " + bytes + " bytes on " + provider + ": " + text);
        }
    }
}
