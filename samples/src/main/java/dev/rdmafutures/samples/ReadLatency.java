package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * READ latency the way perftest's {@code ib_read_lat} measures it, so the two can stand side by side in one run:
 * one outstanding 8 B / 4 KiB / 64 KiB READ at a time, the client busy-driving its own runtime on the calling thread
 * ({@code pollerThreads(0)}), the server a second runtime that sleeps in the kernel between requests. Prints one
 * line per size: {@code size iterations p50 p99 mean} in microseconds.
 *
 * <pre>java ... dev.rdmafutures.samples.ReadLatency -Dprovider=verbs -Daddress=10.0.2.15 -Ddevice=rxe0</pre>
 */
public final class ReadLatency {
    private static final int[] SIZES = {8, 4096, 65536};

    private ReadLatency() {
    }

    public static void main(String[] args) throws Exception {
        String provider = System.getProperty("provider", "soft");
        InetAddress address = InetAddress.getByName(System.getProperty("address", "127.0.0.1"));
        int iterations = Integer.getInteger("iterations", 2000);
        run(provider, System.getProperty("device"), address, iterations, System.out);
    }

    static void run(String provider, String device, InetAddress address, int iterations, PrintStream out)
            throws Exception {
        // The server only answers READs (in hardware for verbs): it waits in the kernel, as ib_read_lat's does.
        try (RdmaRuntime server = builder(provider, device).threadNamePrefix("server")
                .idleStrategy(IdleStrategy.BLOCKING).build();
             RdmaRuntime client = builder(provider, device).pollerThreads(0).build()) {
            RdmaListener listener = server.listen(new InetSocketAddress(address, 0));
            CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                    .start();
            listener.next().get(20, TimeUnit.SECONDS).accept().get(20, TimeUnit.SECONDS);
            RdmaConnection connection = connecting.get(20, TimeUnit.SECONDS);
            int max = SIZES[SIZES.length - 1];
            MemoryRegion remote = server.register(ByteBuffer.allocateDirect(max), Access.REMOTE_READ);
            MemoryRegion local = client.register(ByteBuffer.allocateDirect(max), Access.LOCAL_WRITE);
            RemoteBuffer token = remote.remote();
            out.println("# " + client.adapterInfo() + ", " + iterations + " READs per size, one outstanding");
            out.println("# bytes iterations p50_us p99_us mean_us");
            for (int size : SIZES) {
                for (int i = 0; i < iterations / 4; i++) {
                    // warm-up
                    connection.read(local.slice(0, size), token, 0, OperationFlags.NONE).get(20, TimeUnit.SECONDS);
                }
                long[] samples = new long[iterations];
                for (int i = 0; i < iterations; i++) {
                    long start = System.nanoTime();
                    connection.read(local.slice(0, size), token, 0, OperationFlags.NONE).get(20, TimeUnit.SECONDS);
                    samples[i] = System.nanoTime() - start;
                }
                Arrays.sort(samples);
                double mean = Arrays.stream(samples).average().orElse(0) / 1e3;
                out.printf("%d %d %.2f %.2f %.2f%n", size, iterations, samples[iterations / 2] / 1e3,
                        samples[(int) (iterations * 0.99)] / 1e3, mean);
            }
            connection.disconnect().get(20, TimeUnit.SECONDS);
        }
    }

    private static RdmaRuntime.Builder builder(String provider, String device) {
        RdmaRuntime.Builder b = RdmaRuntime.builder().provider(provider);
        return device == null ? b : b.providerOption(provider + ".device", device);
    }
}
