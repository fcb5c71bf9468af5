package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code bin/kv}'s command line.
 *
 * @param provider the RDMA provider, {@code soft} or {@code verbs}
 * @param device   the verbs device, or null for the provider's choice
 * @param waiting  how the client and server threads of both services wait when idle
 * @param services the services to run, {@code RDMA} and/or {@code TCP}, in that order
 * @param options  provider options ({@link RdmaRuntime.Builder#providerOption}), e.g. {@code soft.crc=false}
 * @param address  where both servers listen
 * @param load     the load: connections, window, keys, value size, GET share, warm-up, duration
 * @param json     where to write the header and the table as JSON too ({@link KvJson}), or null
 */
record KvOptions(String provider, String device, Waiting waiting, List<String> services, Map<String, String> options,
                 InetAddress address, LoadSpec load, Path json) {
    static final String USAGE = String.join("\n",
            "usage: bin/kv [--provider soft|verbs] [--device NAME] [--address IP] [--services rdma,tcp]",
            "              [--connections N] [--window W] [--duration SECONDS] [--warmup SECONDS]",
            "              [--value-size BYTES] [--keys N] [--get-ratio R] [--idle BACKOFF|BLOCKING|YIELD|BUSY_SPIN]",
            "              [--client-idle YIELD|BUSY_SPIN] [--provider-option KEY=VALUE ...] [--json FILE]",
            "defaults: --provider soft --address 127.0.0.1 --services rdma,tcp --connections 8 --window 16",
            "          --duration 10 --warmup 2 --value-size 128 --keys 10000 --get-ratio 0.9",
            "          --idle BACKOFF: the server thread of both services (RDMA: the server runtime's poller; TCP: its",
            "            selector loop, selectNow and spin/yield, blocking in select for BACKOFF and BLOCKING)",
            "          --client-idle YIELD: the client thread of both, the load thread, which polls without blocking",
            "            (RDMA: its application-driven runtime; TCP: its selector, with selectNow)",
            "          --json FILE: also writes the header and the table there as JSON (bin/bench's report reads it)");

    /** Parses the arguments; {@link IllegalArgumentException} with the reason for anything unknown or out of range. */
    static KvOptions parse(String... args) {
        String provider = "soft";
        String device = null;
        IdleStrategy idle = IdleStrategy.BACKOFF;
        IdleStrategy clientIdle = IdleStrategy.YIELD;
        List<String> services = List.of("RDMA", "TCP");
        Map<String, String> options = new LinkedHashMap<>();
        String address = "127.0.0.1";
        int connections = 8;
        int window = 16;
        double duration = 10;
        double warmup = 2;
        int valueSize = 128;
        int keys = 10_000;
        double getRatio = 0.9;
        Path json = null;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            try {
                switch (option) {
                    case "--provider" -> provider = value;
                    case "--device" -> device = value;
                    case "--idle" -> idle = idle(option, value, List.of(IdleStrategy.values()));
                    case "--client-idle" -> clientIdle = idle(option, value, Waiting.CLIENT_CHOICES);
                    case "--services" -> services = services(value);
                    case "--provider-option" -> {
                        int equals = value.indexOf('=');
                        if (equals < 1) {
                            throw new IllegalArgumentException("--provider-option needs KEY=VALUE, not " + value);
                        }
                        options.put(value.substring(0, equals), value.substring(equals + 1));
                    }
                    case "--address" -> address = value;
                    case "--connections" -> connections = Integer.parseInt(value);
                    case "--window" -> window = Integer.parseInt(value);
                    case "--duration" -> duration = Double.parseDouble(value);
                    case "--warmup" -> warmup = Double.parseDouble(value);
                    case "--value-size" -> valueSize = Integer.parseInt(value);
                    case "--keys" -> keys = Integer.parseInt(value);
                    case "--get-ratio" -> getRatio = Double.parseDouble(value);
                    case "--json" -> json = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + option);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " needs a number, not " + value);
            }
        }
        if (!(duration > 0) || !(warmup >= 0) || duration > 3600 || warmup > 3600) {
            throw new IllegalArgumentException("--duration must be 0..3600 s and positive, --warmup 0..3600 s");
        }
        try {
            return new KvOptions(provider, device, new Waiting(clientIdle, idle), services, Map.copyOf(options),
                    InetAddress.getByName(address), LoadSpec.timed(connections, window, keys, valueSize, getRatio,
                            seconds(warmup), seconds(duration)), json);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown address " + address);
        }
    }

    /** A runtime builder with the provider, device and provider options chosen. */
    RdmaRuntime.Builder runtime() {
        RdmaRuntime.Builder b = RdmaRuntime.builder().provider(provider);
        options.forEach(b::providerOption);
        return device == null ? b : b.providerOption(provider + ".device", device);
    }

    private static IdleStrategy idle(String option, String name, List<IdleStrategy> choices) {
        return choices.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(
                () -> new IllegalArgumentException(option + " must be one of " + choices));
    }

    private static List<String> services(String list) {
        List<String> names = Arrays.stream(list.split(",")).map(s -> s.trim().toUpperCase(Locale.ROOT)).toList();
        if (names.isEmpty() || !List.of("RDMA", "TCP").containsAll(names)) {
            throw new IllegalArgumentException("--services takes rdma, tcp or both (rdma,tcp), not " + list);
        }
        return Stream.of("RDMA", "TCP").filter(names::contains).toList();
    }

    private static Duration seconds(double seconds) {
        return Duration.ofNanos((long) (seconds * 1e9));
    }
}
