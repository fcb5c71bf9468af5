package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The data-path part of the demo: READ, WRITE and SEND of several sizes, each checked by CRC32C of the bytes on both
 * sides. {@link ReadComparison} then measures READ beside TCP.
 */
final class DataPathTour {
    private static final int MAX = 1 << 20;

    private final RdmaRuntime runtime;
    private final RdmaConnection client;
    private final RdmaConnection server;
    private final PrintStream out;

    DataPathTour(RdmaRuntime runtime, RdmaConnection client, RdmaConnection server, PrintStream out) {
        this.runtime = runtime;
        this.client = client;
        this.server = server;
        this.out = out;
    }

    /** Runs the tour; returns whether every byte arrived intact. */
    boolean run() throws Exception {
        MemoryRegion local = runtime.register(ByteBuffer.allocateDirect(MAX), Access.LOCAL_WRITE);
        MemoryRegion remote = runtime.register(ByteBuffer.allocateDirect(MAX), Access.values());
        RemoteBuffer token = RemoteBuffer.decode(remote.remote().encode()); // as a peer would receive it
        fill(remote, 1);
        boolean intact = true;
        out.println("data path (READ, WRITE, SEND; CRC32C of the bytes on both sides):");
        for (int size : new int[] {1, 8, 4096, 65536, MAX}) {
            get(client.read(local.slice(0, size), token, 0, OperationFlags.NONE));
            boolean read = crc(local, size) == crc(remote, size);
            fill(local, size);
            get(client.write(local.slice(0, size), token, 0, OperationFlags.NONE));
            // the peer placed the write once this returns
            get(client.read(local.slice(MAX - 1, 0), token, 0, OperationFlags.NONE));
            boolean write = crc(local, size) == crc(remote, size);
            CompletableFuture<?> rx = server.receive(remote.slice(0, MAX));
            fill(local, size * 3L);
            get(client.send(local.slice(0, size), OperationFlags.NONE));
            get(rx);
            boolean send = crc(local, size) == crc(remote, size);
            out.printf("  %8d B  read %s  write %s  send %s%n", size, ok(read), ok(write), ok(send));
            intact &= read && write && send;
        }
        local.close();
        remote.close();
        return intact;
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(15, TimeUnit.SECONDS);
    }

    private static void fill(MemoryRegion region, long seed) {
        ByteBuffer b = region.buffer();
        Random r = new Random(seed);
        while (b.remaining() >= 8) {
            b.putLong(r.nextLong());
        }
    }

    private static long crc(MemoryRegion region, int size) {
        CRC32C c = new CRC32C();
        c.update(region.buffer().limit(size));
        return c.getValue();
    }

    private static String ok(boolean good) {
        return good ? "ok" : "CORRUPT";
    }
}
