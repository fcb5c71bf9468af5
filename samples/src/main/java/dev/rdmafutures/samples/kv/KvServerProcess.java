package dev.rdmafutures.samples.kv;

import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA KV server alone in a process of its own, for fault tests that kill it or cut its link while clients load
 * it ({@code KvServerKilledTest}, the VM pair's {@code KvLinkCutPair}): serves a preloaded {@link KvStore} as
 * {@code bin/kv}'s RDMA service does, prints {@code READY <port>} once it listens, and serves until its standard
 * input ends (its parent went away) or it is killed.
 *
 * <pre>KvServerProcess [--port P (0: any)] [bin/kv's options: --provider --device --address --keys --value-size
 *                  --connections --window (the shared receive queue takes connections x window) --idle
 *                  --provider-option]</pre>
 */
public final class KvServerProcess {
    private static final Logger LOG = LoggerFactory.getLogger(KvServerProcess.class);

    private KvServerProcess() {
    }

    public static void main(String[] args) throws IOException {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        int port = 0;
        int at = rest.indexOf("--port");
        if (at >= 0 && at + 1 < rest.size()) {
            port = Integer.parseInt(rest.get(at + 1));
            rest.subList(at, at + 2).clear();
        }
        KvOptions options = KvOptions.parse(rest.toArray(String[]::new));
        LoadSpec load = options.load();
        RdmaRuntime runtime = options.runtime().pollerThreads(1).idleStrategy(options.waiting().server())
                .threadNamePrefix("kv-server").build();
        try (RdmaKvServer server = new RdmaKvServer(runtime, new InetSocketAddress(options.address(), port),
                KvStore.preloaded(load.keys(), load.valueSize()), load.connections() * load.window())) {
            System.out.println("READY " + server.address().getPort());
            System.out.flush();
            // Nothing comes on standard input: its end (the parent closed the pipe, or ended) says stop, so a
            // server whose test died does not outlive it.
            System.in.transferTo(OutputStream.nullOutputStream());
            LOG.info("standard input ended: the server stops");
        }
    }
}
