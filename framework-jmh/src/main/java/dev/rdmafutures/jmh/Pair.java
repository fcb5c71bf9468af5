package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Both ends of one connection of a provider, each in its own runtime as two hosts would have them, with a
 * registered region on each side ({@code serverRegion} readable and writable remotely, {@code clientRegion}
 * locally). {@code soft} runs on loopback; {@code verbs} on the device named by {@code -Dbench.device} and its
 * address {@code -Dbench.address} (the benchmark script passes both inside the RDMA VM).
 */
final class Pair implements AutoCloseable {
    final Driver driver;
    final RdmaRuntime clientRuntime;
    final RdmaRuntime serverRuntime;
    final RdmaConnection client;
    final RdmaConnection server;
    final MemoryRegion clientRegion;
    final MemoryRegion serverRegion;
    final RemoteBuffer serverBuffer;
    final RemoteBuffer clientBuffer;

    /**
     * @param provider    {@code soft} or {@code verbs}
     * @param driver      how the client runtime runs
     * @param serverIdle  the server poller's idle strategy
     * @param regionSize  bytes registered on each side
     * @param readLimit   read limits asked for in both directions
     */
    Pair(String provider, Driver driver, IdleStrategy serverIdle, int regionSize, int readLimit) throws Exception {
        this.driver = driver;
        clientRuntime = driver.configure(builder(provider).threadNamePrefix("bench-client")).build();
        serverRuntime = builder(provider).threadNamePrefix("bench-server").pollerThreads(1).idleStrategy(serverIdle)
                .build();
        RdmaListener listener = serverRuntime.listen(new InetSocketAddress(address(provider), 0));
        CompletableFuture<RdmaConnection> c = clientRuntime.connector().connect(listener.localAddress())
                .withReadLimits(readLimit, readLimit).start();
        server = listener.next().get(20, TimeUnit.SECONDS).withReadLimits(readLimit, readLimit).accept()
                .get(20, TimeUnit.SECONDS);
        client = c.get(20, TimeUnit.SECONDS);
        listener.close();
        serverRegion = serverRuntime.register(ByteBuffer.allocateDirect(regionSize), Access.LOCAL_WRITE,
                Access.REMOTE_READ, Access.REMOTE_WRITE);
        clientRegion = clientRuntime.register(ByteBuffer.allocateDirect(regionSize), Access.LOCAL_WRITE,
                Access.REMOTE_READ, Access.REMOTE_WRITE);
        serverBuffer = serverRegion.remote();
        clientBuffer = clientRegion.remote();
    }

    static RdmaRuntime.Builder builder(String provider) {
        RdmaRuntime.Builder b = RdmaRuntime.builder().provider(provider);
        String device = System.getProperty("bench.device");
        if (provider.equals("soft")) {
            return b.providerOption("soft.crc", "false"); // as siw and iWARP NICs negotiate by default on loopback
        }
        return device == null ? b : b.providerOption(provider + ".device", device);
    }

    static InetAddress address(String provider) throws UnknownHostException {
        String address = System.getProperty("bench.address");
        return address == null || provider.equals("soft") ? InetAddress.getLoopbackAddress()
                : InetAddress.getByName(address);
    }

    /**
     * Waits until {@code waiter}'s operations completed: by driving an invoked client runtime, otherwise parked until
     * the poller completes them (a spinning caller would make three busy threads on two cores). A future's
     * {@code join()} does the same by itself.
     */
    void await(Waiter waiter) {
        if (driver != Driver.INVOKED) {
            waiter.park();
            return;
        }
        while (!waiter.isDone()) {
            clientRuntime.poll();
        }
    }

    @Override
    public void close() {
        clientRuntime.close();
        serverRuntime.close();
    }
}
