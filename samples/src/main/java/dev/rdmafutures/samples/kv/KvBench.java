package dev.rdmafutures.samples.kv;

import dev.rdmafutures.RdmaException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A remote-memory key-value service of the kind RDMA papers build (Pilaf, FaRM), loaded over RDMA and, in the same
 * run, over plain TCP with the same framing and the same table ({@link KvStore}). GET is one-sided: values of up to
 * {@value KvLayout#INLINE_MAX} bytes live inline in their index slots, so one READ of the key's neighbourhood
 * answers it, and once the client knows the key's slot ({@link SlotCache}) one READ of that slot; larger ones take a
 * second, scatter-gather READ of the record into a header and a payload buffer. What is read is self-verified by
 * checksums and read again when torn; the server's CPU takes no part. The TCP twin answers a GET with the same slot
 * or record, checked the same way. PUT is two-sided: a Send gathered from a header
 * and the value into the server's shared receive queue, acknowledged by a small Send. Each service has one client
 * thread, the load thread, which polls without blocking ({@code --client-idle}), and one server thread, which waits
 * as {@code --idle} says ({@link Waiting}); the header states both for each service. Prints throughput, latency
 * percentiles and round trips per GET of each service and, when both ran ({@code --services}), their ratios, and with
 * {@code --json FILE} writes the same as JSON ({@link KvJson}); every value read is checked, and a wrong one fails the
 * run (exit 1).
 *
 * <pre>bin/kv [--provider soft|verbs] [--services rdma,tcp] [--connections 8] [--window 16] ...   (bin/kv --help)</pre>
 */
public final class KvBench {
    private KvBench() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out));
    }

    /** Runs the benchmark; 0 when every service run answered every operation correctly, 1 if not, 2 for bad usage. */
    static int run(String[] args, PrintStream out) throws Exception {
        if (Arrays.asList(args).contains("--help")) {
            out.println(KvOptions.USAGE);
            return 0;
        }
        KvOptions options;
        try {
            options = KvOptions.parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage() + "\n" + KvOptions.USAGE);
            return 2;
        }
        LoadSpec load = options.load();
        List<String> header = new ArrayList<>();
        header.add(String.format(Locale.ROOT, "KV service on %s: %d connections x window %d, %d keys of %d B, %.0f%% "
                        + "GET, warm-up %.1f s, measured %.1f s%s", options.address().getHostAddress(),
                load.connections(), load.window(), load.keys(), load.valueSize(), load.getRatio() * 100,
                load.warmup().toMillis() / 1e3, load.duration().toMillis() / 1e3,
                options.options().isEmpty() ? "" : ", provider options " + options.options()));
        header.add("  GET: " + KvLayout.forKeys(load.keys(), load.valueSize()).describe());
        for (String service : options.services()) {
            header.add(String.format("  %-5s client thread: %s", service + ":",
                    options.waiting().describeClient(service)));
            header.add("        server thread: " + options.waiting().describeServer(service));
        }
        header.forEach(out::println);
        List<RunResult> results = new ArrayList<>();
        for (String service : options.services()) {
            results.add(service.equals("RDMA") ? rdma(options, out) : tcp(options, out));
        }
        print(out, results);
        if (options.json() != null) {
            Files.writeString(options.json(), KvJson.of(args, header, results));
        }
        return results.stream().allMatch(RunResult::ok) ? 0 : 1;
    }

    private static RunResult rdma(KvOptions options, PrintStream out) throws Exception {
        LoadSpec load = options.load();
        try (KvService service = KvService.rdma(options::runtime, options.address(),
                KvStore.preloaded(load.keys(), load.valueSize()), load.connections() * load.window(),
                options.waiting())) {
            RunResult result = service.run(load, new Expectations(load.keys()));
            out.println("  RDMA: " + service.details());
            return result;
        } catch (RdmaException e) { // e.g. a provider without shared receive queues: say so, and still run TCP
            return RunResult.failed("RDMA", "the service could not run: " + e.getMessage());
        }
    }

    private static RunResult tcp(KvOptions options, PrintStream out) throws Exception {
        LoadSpec load = options.load();
        try (KvService service = KvService.tcp(options.address(), KvStore.preloaded(load.keys(), load.valueSize()),
                options.waiting())) {
            RunResult result = service.run(load, new Expectations(load.keys()));
            out.println("  TCP:  " + service.details());
            return result;
        }
    }

    /** RDMA over TCP: throughput, then p50, p99 and p99.9 latency. */
    static double[] ratios(RunResult rdma, RunResult tcp) {
        return new double[] {rdma.throughput() / tcp.throughput(), rdma.micros(50) / tcp.micros(50),
            rdma.micros(99) / tcp.micros(99), rdma.micros(99.9) / tcp.micros(99.9)};
    }

    /** The table of {@code results}, with the RDMA/TCP ratios when both services ran. */
    static void print(PrintStream out, List<RunResult> results) {
        out.println("service       ops/s   p50 us   p99 us p99.9 us       GETs  trips/GET       PUTs  torn reads");
        for (RunResult r : results) {
            out.printf(Locale.ROOT, "%-8s %10.0f %8.1f %8.1f %8.1f %10d %10.3f %10d %11d%n", r.service(),
                    r.throughput(), r.micros(50), r.micros(99), r.micros(99.9), r.gets(), r.tripsPerGet(), r.puts(),
                    r.tornReads());
        }
        if (results.size() == 2) {
            double[] r = ratios(results.get(0), results.get(1));
            out.printf(Locale.ROOT, "RDMA/TCP %9.2fx %7.2fx %7.2fx %7.2fx   (throughput: higher is better; latency: "
                    + "lower)%n", r[0], r[1], r[2], r[3]);
        }
        for (RunResult r : results) {
            out.println(r.ok() ? r.service() + ": every value read was checked: OK"
                    : r.service() + ": FAILED: " + r.failure());
            if (!r.ok()) { // how every operation ended, so that a failed run still accounts for each
                Outcomes o = r.outcomes();
                out.printf(Locale.ROOT, "%s: %d operations started: %d GETs checked, %d PUTs acknowledged, failed by "
                        + "status %s, %d problems%n", r.service(), o.started(), o.checkedGets(), o.acknowledgedPuts(),
                        o.failedByStatus(), o.problems());
            }
        }
    }
}
