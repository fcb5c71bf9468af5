package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs inside a private network namespace prepared by {@link NetworkStatusesInNamespaceTest} (only loopback, an
 * "unreachable" route for 203.0.113.0/24, two ephemeral ports, a low descriptor limit) and prints one line per
 * scenario: {@code name STATUS}. Nothing it sends can leave the namespace.
 */
public final class NamespaceScenarios {
    private NamespaceScenarios() {
    }

    public static void main(String[] args) throws Exception {
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider("soft").build()) {
            report("network-unreachable", runtime.connector()
                    .connect(new InetSocketAddress(InetAddress.getByName("198.51.100.7"), 4791)).start());
            report("host-unreachable", runtime.connector()
                    .connect(new InetSocketAddress(InetAddress.getByName("203.0.113.5"), 4791)).start());

            // Fixed ports outside the two-port ephemeral range, so that only the connects draw from it.
            RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000));
            listener.onRequest(r -> r.accept());
            List<RdmaConnection> held = new ArrayList<>();
            String outcome = "NONE";
            for (int i = 0; i < 4 && outcome.equals("NONE"); i++) {
                try {
                    held.add(runtime.connector().connect(listener.localAddress()).start().get(10, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    outcome = statusOf(e);
                }
            }
            System.out.println("ephemeral-ports-exhausted " + outcome + " after " + held.size());
            try {
                runtime.sharedEndpoint(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                System.out.println("shared-endpoint-no-port NONE");
            } catch (RdmaException e) {
                System.out.println("shared-endpoint-no-port " + e.status());
            }
            // Ended before the hog below: a close still under way would free its socket's descriptor after the hog
            // took every one, and the connect below would then fail for the ephemeral ports instead.
            for (RdmaConnection c : held) {
                c.disconnect().get(10, TimeUnit.SECONDS);
            }

            List<SocketChannel> hog = new ArrayList<>();
            try {
                while (hog.size() < 100_000) {
                    hog.add(SocketChannel.open());
                }
            } catch (IOException expected) {
                // the descriptor limit is reached: now the provider must fail cleanly
            }
            report("descriptors-exhausted", runtime.connector().connect(listener.localAddress()).start());
            for (SocketChannel c : hog) {
                c.close();
            }
            CompletableFuture<RdmaConnection> after = runtime.connector().connect(listener.localAddress())
                    .from(new InetSocketAddress(InetAddress.getLoopbackAddress(), 40001)).start();
            System.out.println("serves-after " + (after.get(10, TimeUnit.SECONDS).isConnected() ? "OK" : "NOT"));
        }
    }

    private static void report(String name, CompletableFuture<RdmaConnection> future) throws Exception {
        try {
            future.get(10, TimeUnit.SECONDS).close();
            System.out.println(name + " NONE");
        } catch (ExecutionException e) {
            System.out.println(name + " " + statusOf(e));
        }
    }

    private static String statusOf(ExecutionException e) {
        return e.getCause() instanceof RdmaException r ? r.status().name() : e.getCause().toString();
    }
}
