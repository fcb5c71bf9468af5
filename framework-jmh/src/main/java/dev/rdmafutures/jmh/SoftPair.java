package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Both ends of one soft connection on loopback, driven by a single busy-spinning poller, with a registered source
 * region on the server side and a sink on the client side. One poller plus the benchmark thread is two busy
 * threads, as many as the two-thread socket baselines use.
 */
final class SoftPair implements AutoCloseable {
    final RdmaRuntime runtime;
    final RdmaConnection client;
    final RdmaConnection server;
    final MemoryRegion source;
    final MemoryRegion sink;

    SoftPair(int regionSize, int readLimit) throws Exception {
        runtime = RdmaRuntime.builder().idleStrategy(IdleStrategy.BUSY_SPIN).pollerThreads(1)
                .providerOption("soft.crc", "false").threadNamePrefix("bench-poller").build();
        RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        CompletableFuture<RdmaConnection> c = runtime.connector().connect(listener.localAddress())
                .withReadLimits(readLimit, readLimit).start();
        server = listener.next().get(10, TimeUnit.SECONDS).withReadLimits(readLimit, readLimit).accept()
                .get(10, TimeUnit.SECONDS);
        client = c.get(10, TimeUnit.SECONDS);
        listener.close();
        source = runtime.register(ByteBuffer.allocateDirect(regionSize), Access.REMOTE_READ);
        sink = runtime.register(ByteBuffer.allocateDirect(regionSize), Access.LOCAL_WRITE);
    }

    /** Waits for {@code f} by spinning, as a latency-sensitive caller would. */
    static <T> T spin(CompletableFuture<T> f) {
        while (!f.isDone()) {
            Thread.onSpinWait();
        }
        return f.join();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
