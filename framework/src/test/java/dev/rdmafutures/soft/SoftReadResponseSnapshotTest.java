package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * RDMA lets a region's owner change it while peers read it: the reader gets some of the bytes, never a broken
 * connection. With MPA CRCs on, soft's Read Responses are CRC'd and sent from one copy, so a response whose source
 * changed after it was framed still matches its CRC (a CRC over live memory, sent later, would not: the peer would
 * see a mismatch and terminate the stream; the KV sample reads slots while they change).
 */
class SoftReadResponseSnapshotTest {
    private static final int SIZE = 4096;
    private static final int READS = 4000;
    private static final int WINDOW = 16;

    @Test
    void readsOfMemoryItsOwnerKeepsChangingNeverBreakTheConnection() throws Exception {
        try (RdmaRuntime server = SoftFixture.INSTANCE.runtimeBuilder().build();
             RdmaRuntime client = SoftFixture.INSTANCE.runtimeBuilder().build()) {
            MemoryRegion source = server.register(ByteBuffer.allocateDirect(SIZE), Access.REMOTE_READ);
            MemoryRegion sink = client.register(ByteBuffer.allocateDirect(SIZE * WINDOW), Access.LOCAL_WRITE);
            RdmaListener listener = server.listen(new InetSocketAddress(SoftFixture.INSTANCE.deviceAddress(), 0));
            CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress()).start();
            ConnectionRequest request = listener.next().get(10, TimeUnit.SECONDS);
            RdmaConnection accepted = request.accept().get(10, TimeUnit.SECONDS);
            RdmaConnection connection = connecting.get(10, TimeUnit.SECONDS);
            AtomicBoolean running = new AtomicBoolean(true);
            Thread owner = new Thread(() -> {
                ByteBuffer bytes = source.buffer();
                for (byte b = 0; running.get(); b++) {
                    for (int i = 0; i < SIZE; i += 8) {
                        bytes.putLong(i, b * 0x0101010101010101L);
                    }
                }
            }, "region-owner");
            owner.start();
            try {
                CompletableFuture<?>[] window = new CompletableFuture<?>[WINDOW];
                for (int i = 0; i < READS; i++) {
                    int slot = i % WINDOW;
                    if (window[slot] != null) {
                        window[slot].get(10, TimeUnit.SECONDS);
                    }
                    window[slot] = connection.read(sink.slice(slot * SIZE, SIZE), source.remote(), 0,
                            OperationFlags.NONE);
                }
                for (CompletableFuture<?> f : window) {
                    f.get(10, TimeUnit.SECONDS);
                }
            } finally {
                running.set(false);
                owner.join();
            }
            assertThat(connection.isConnected()).isTrue();
            assertThat(accepted.isConnected()).isTrue();
        }
    }
}
