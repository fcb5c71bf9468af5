package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs one load against an {@link RdmaKvServer}: connects the spec's connections (each learns the server's regions
 * from the accept's private data), drives them ({@link RdmaKvConnection}) on the calling thread until the run ends,
 * disconnects them.
 */
final class RdmaKvClient {
    private static final Duration CONNECT = Duration.ofSeconds(20);

    private RdmaKvClient() {
    }

    /**
     * Runs one load on {@code runtime}, an application-driven runtime ({@code pollerThreads(0)}) owned by the calling
     * thread: this thread polls it, so every completion and the next post run here without a thread hand-off, as an
     * RDMA client polls its completion queues; a poll that found nothing is followed by {@code idle} (BUSY_SPIN or
     * YIELD).
     */
    static RunResult run(RdmaRuntime runtime, InetSocketAddress server, LoadSpec spec, Expectations expectations,
                         IdleStrategy idle) throws Exception {
        return run(runtime, server, spec, expectations, idle, null);
    }

    /**
     * As {@link #run(RdmaRuntime, InetSocketAddress, LoadSpec, Expectations, IdleStrategy)}, counting into
     * {@code control} when not null (made for {@code spec}), which another thread may watch: a fault test waits for
     * its milestone and reads its counts while the load runs. Without one, the run's clock starts once every
     * connection is established.
     */
    static RunResult run(RdmaRuntime runtime, InetSocketAddress server, LoadSpec spec, Expectations expectations,
                         IdleStrategy idle, RunControl control) throws Exception {
        return run(runtime, server, spec, expectations, idle, control, new SlotCache(spec.keys()));
    }

    /**
     * As {@link #run(RdmaRuntime, InetSocketAddress, LoadSpec, Expectations, IdleStrategy, RunControl)}, with the
     * index slots {@code slotCache} knows (made for {@code spec}'s keys) rather than none.
     */
    static RunResult run(RdmaRuntime runtime, InetSocketAddress server, LoadSpec spec, Expectations expectations,
                         IdleStrategy idle, RunControl control, SlotCache slotCache) throws Exception {
        List<CompletableFuture<RdmaConnection>> connecting = new ArrayList<>();
        for (int i = 0; i < spec.connections(); i++) {
            // A slot has one READ or Send outstanding at a time and each PUT one acknowledgement: depth = window.
            connecting.add(runtime.connector().connect(server).withPrivateData(Bootstrap.hello(spec.window()))
                    .withQueueDepths(spec.window(), spec.window()).withMaxSge(2, 1)
                    .withReadLimits(1, spec.window()).withTimeout(CONNECT).start());
        }
        List<RdmaConnection> connections = new ArrayList<>();
        List<RdmaKvConnection> clients = new ArrayList<>();
        try {
            for (CompletableFuture<RdmaConnection> c : connecting) {
                connections.add(c.get(CONNECT.toSeconds() + 5, TimeUnit.SECONDS));
            }
            Bootstrap bootstrap = Bootstrap.decode(connections.get(0).connectionData().peerPrivateData());
            if (spec.valueSize() > bootstrap.maxValue()) {
                throw new IllegalArgumentException("the server stores values of at most " + bootstrap.maxValue()
                        + " bytes, not " + spec.valueSize());
            }
            RunControl run = control != null ? control : new RunControl(spec);
            for (int i = 0; i < connections.size(); i++) {
                clients.add(new RdmaKvConnection(runtime, connections.get(i), i, bootstrap, spec, run,
                        expectations, slotCache));
            }
            clients.forEach(RdmaKvConnection::start);
            drive(runtime, clients, run, new Idler(idle, null));
            return RunResult.of("RDMA", run, clients.stream().map(RdmaKvConnection::stats).toList());
        } finally {
            for (RdmaConnection c : connections) {
                try {
                    c.disconnect().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // the runtime's close ends it
                }
            }
            clients.forEach(RdmaKvConnection::close);
            connecting.forEach(c -> c.cancel(false));
        }
    }

    /** Polls until every connection's window has stopped, or the run's drain deadline. */
    private static void drive(RdmaRuntime runtime, List<RdmaKvConnection> clients, RunControl control, Idler idler)
            throws IOException {
        long deadline = control.drainDeadline();
        for (int i = 0; i < clients.size(); ) {
            if (clients.get(i).isIdle()) {
                i++;
            } else if (System.nanoTime() - deadline > 0) {
                control.fail("connection " + i + " still had operations outstanding at the deadline");
                return;
            } else {
                idler.idle(runtime.poll());
            }
        }
    }
}
