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
 * Both ends of one soft connection on loopback, with a registered source region on the server side and a sink on
 * the client side. {@link #sharedPoller} drives both ends from one busy-spinning poller, so that with a spinning
 * caller two threads are busy, as in a two-thread socket ping-pong; {@link #separatePollers} gives each end its
 * own runtime and poller, as two hosts would have, for bulk transfer where the baseline uses two cores too.
 */
final class SoftPair implements AutoCloseable {
    final RdmaRuntime runtime;
    private final RdmaRuntime peerRuntime;
    final RdmaConnection client;
    final RdmaConnection server;
    final MemoryRegion source;
    final MemoryRegion sink;

    static SoftPair sharedPoller(int regionSize, int readLimit) throws Exception {
        RdmaRuntime one = runtime("bench-poller", IdleStrategy.BUSY_SPIN);
        return new SoftPair(one, one, regionSize, readLimit);
    }

    /**
     * The client end driven by the calling thread itself ({@code pollerThreads(0)}: no hand-off), the server end
     * on its own busy-spinning poller: two busy threads, each doing its own end's work, as in a socket ping-pong.
     */
    static SoftPair invokedClient(int regionSize, int readLimit) throws Exception {
        RdmaRuntime invoked = RdmaRuntime.builder().pollerThreads(0).providerOption("soft.crc", "false")
                .threadNamePrefix("bench-invoked").build();
        return new SoftPair(invoked, runtime("bench-server", IdleStrategy.BUSY_SPIN), regionSize, readLimit);
    }

    static SoftPair separatePollers(int regionSize, int readLimit, IdleStrategy idle) throws Exception {
        return new SoftPair(runtime("bench-client", idle), runtime("bench-server", idle), regionSize, readLimit);
    }

    private static RdmaRuntime runtime(String name, IdleStrategy idle) {
        return RdmaRuntime.builder().idleStrategy(idle).pollerThreads(1).providerOption("soft.crc", "false")
                .threadNamePrefix(name).build();
    }

    private SoftPair(RdmaRuntime clientSide, RdmaRuntime serverSide, int regionSize, int readLimit)
            throws Exception {
        runtime = clientSide;
        peerRuntime = serverSide;
        RdmaListener listener = serverSide.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        CompletableFuture<RdmaConnection> c = runtime.connector().connect(listener.localAddress())
                .withReadLimits(readLimit, readLimit).start();
        server = listener.next().get(10, TimeUnit.SECONDS).withReadLimits(readLimit, readLimit).accept()
                .get(10, TimeUnit.SECONDS);
        client = c.get(10, TimeUnit.SECONDS);
        listener.close();
        source = serverSide.register(ByteBuffer.allocateDirect(regionSize), Access.REMOTE_READ);
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
        peerRuntime.close();
    }
}
