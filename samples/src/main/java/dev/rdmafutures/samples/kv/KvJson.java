package dev.rdmafutures.samples.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code bin/kv --json FILE}: what {@link KvBench} printed, as the JSON {@code bin/bench}'s report reads, so that the
 * report's KV table carries the numbers and ratios bin/kv printed, not numbers of its own. The arguments, the header
 * lines (the load, the GET path, each service's client and server thread and how each waits), one object per service
 * with the table's columns, and the RDMA/TCP ratios (null unless both ran; a ratio without a finite value is null).
 */
final class KvJson {
    private KvJson() {
    }

    static String of(String[] args, List<String> header, List<RunResult> results) {
        List<String> services = new ArrayList<>();
        for (RunResult r : results) {
            services.add(String.format(Locale.ROOT, "{\"service\": %s, \"ops_per_s\": %s, \"p50_us\": %s, "
                            + "\"p99_us\": %s, \"p99_9_us\": %s, \"gets\": %d, \"trips_per_get\": %s, \"puts\": %d, "
                            + "\"torn_reads\": %d, \"ok\": %b, \"failure\": %s}", string(r.service()),
                    number(r.throughput()), number(r.micros(50)), number(r.micros(99)), number(r.micros(99.9)),
                    r.gets(), number(r.tripsPerGet()), r.puts(), r.tornReads(), r.ok(),
                    r.failure() == null ? "null" : string(r.failure())));
        }
        String ratios = "null";
        if (results.size() == 2) {
            double[] q = KvBench.ratios(results.get(0), results.get(1));
            ratios = String.format("{\"ops_per_s\": %s, \"p50\": %s, \"p99\": %s, \"p99_9\": %s}", number(q[0]),
                    number(q[1]), number(q[2]), number(q[3]));
        }
        return "{\n  \"args\": " + strings(List.of(args)) + ",\n  \"header\": " + strings(header)
                + ",\n  \"services\": [\n    " + String.join(",\n    ", services) + "\n  ],\n  \"ratios\": " + ratios
                + "\n}\n";
    }

    /** Every digit, so that the report rounds as bin/kv did. */
    private static String number(double value) {
        return Double.isFinite(value) ? Double.toString(value) : "null";
    }

    private static String strings(List<String> values) {
        return values.stream().map(KvJson::string).collect(Collectors.joining(", ", "[", "]"));
    }

    /** A JSON string: quotes, backslashes and control characters escaped. */
    private static String string(String value) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
