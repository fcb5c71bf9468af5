package dev.rdmafutures.samples.kv;

import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/** A running KV server and the way to load it: over RDMA, or its TCP twin. */
interface KvService extends AutoCloseable {
    /** {@code RDMA} or {@code TCP}. */
    String name();

    /** Runs one load against the server; {@code expectations} carries over between runs of one server. */
    RunResult run(LoadSpec spec, Expectations expectations) throws Exception;

    /** Stops the server and releases what the service holds. */
    @Override
    void close() throws IOException;

    /** What to report beside the numbers, e.g. the shared receive queue's depth. */
    String details();

    /**
     * The RDMA service: a server runtime and a client runtime from {@code runtimes} (provider, device), the server
     * on {@code address} serving {@code store} with a shared receive queue of {@code queueDepth} receives, its one
     * poller thread waiting as {@code waiting} says. The client runtime is application-driven and owned by the
     * calling thread, which must be the one that runs the loads.
     */
    static KvService rdma(Supplier<RdmaRuntime.Builder> runtimes, InetAddress address, KvStore store,
                          int queueDepth, Waiting waiting) {
        RdmaRuntime serverRuntime = runtimes.get().pollerThreads(1).idleStrategy(waiting.server())
                .threadNamePrefix("kv-server").build();
        RdmaKvServer server;
        try {
            server = new RdmaKvServer(serverRuntime, new InetSocketAddress(address, 0), store, queueDepth);
        } catch (RuntimeException e) {
            serverRuntime.close();
            throw e;
        }
        RdmaRuntime client;
        try {
            client = runtimes.get().pollerThreads(0).build(); // driven by the thread that runs the load
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return new KvService() {
            @Override
            public String name() {
                return "RDMA";
            }

            @Override
            public RunResult run(LoadSpec spec, Expectations expectations) throws Exception {
                return RdmaKvClient.run(client, server.address(), spec, expectations, waiting.client());
            }

            @Override
            public String details() {
                return client.adapterInfo().providerName() + "/" + client.adapterInfo().deviceName()
                        + ", shared receive queue of " + server.queueDepth() + " receives, fell below a quarter "
                        + server.lowWaterNotifications() + " times";
            }

            @Override
            public void close() {
                client.close();
                server.close();
            }
        };
    }

    /**
     * The TCP twin on {@code address}, serving {@code store}; its client and server threads wait as {@code waiting}
     * says.
     */
    static KvService tcp(InetAddress address, KvStore store, Waiting waiting) throws IOException {
        TcpKvServer server = new TcpKvServer(new InetSocketAddress(address, 0), store, waiting.server());
        return new KvService() {
            @Override
            public String name() {
                return "TCP";
            }

            @Override
            public RunResult run(LoadSpec spec, Expectations expectations) throws Exception {
                return TcpKvClient.run(server.address(), spec, expectations, waiting.client());
            }

            @Override
            public String details() {
                return "Java NIO, non-blocking sockets with TCP_NODELAY";
            }

            @Override
            public void close() throws IOException {
                server.close();
            }
        };
    }
}
