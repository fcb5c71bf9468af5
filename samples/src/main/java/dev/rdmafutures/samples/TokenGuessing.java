package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PeerFaultPolicy;
import dev.rdmafutures.ProtectionDomain;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A hostile peer guessing tokens (issue 27): a server registers {@code regions} regions of 64 B with
 * {@code REMOTE_READ} and accepts any connection, handing out none of them; one attacker thread connects, READs
 * through a forged {@link RemoteBuffer} (offset 0, which is valid in every soft region, and a random token) and
 * connects again whenever the server terminates the connection, as it does after each wrong guess. It runs twice:
 * against a server without defences ({@link PeerFaultPolicy#disabled()}) and against one with the default,
 * {@link PeerFaultPolicy#standard()}, which refuses the attacker's address for a growing back-off, and once more
 * without the policy but with each connection accepted in a protection domain of its own, where no token of the
 * regions exists, so that no guess can hit by construction. For each it prints the guesses per second, the hits (READs
 * that brought a region's bytes), the expected time to a first hit at that rate (2^32 / (regions x rate) on soft,
 * 2^32 / rate on verbs), how each guess ended, the connects the server refused and the WARN lines it logged.
 *
 * <p>Usage: {@code TokenGuessing [seconds per run (10)] [regions (1000)] [logFile (target/token-guessing.log)]}; soft
 * on loopback, or {@code -Dprovider=verbs -Ddevice=rxe0 -Daddress=10.0.2.15} (as in the RDMA VM). The log file
 * receives every line slf4j-simple writes (the program sets it before the first logger). soft's tokens are
 * zero-based, so offset 0 of a guessed token is valid in every region and a guess hits if it names any of them;
 * verbs' carry the region's virtual address, so the attacker is given the address of a random region (the worst
 * case: it knows them all) and a guess hits only if it names that region's rkey.
 */
public final class TokenGuessing {
    private static final int REGION = 64;
    private static final long WAIT_SECONDS = 10;
    private static final double SECONDS_PER_YEAR = 365.25 * 24 * 3600;
    private static final String PROVIDER = System.getProperty("provider", "soft");
    private static final String DEVICE = System.getProperty("device");
    private static final InetAddress ADDRESS = address(System.getProperty("address"));
    /** Whether a remote buffer carries the region's virtual address ({@code verbs}) rather than offset 0. */
    private static final boolean ADDRESSED = !PROVIDER.equals("soft");

    private TokenGuessing() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int regions = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path logFile = Path.of(args.length > 2 ? args[2] : "target/token-guessing.log");
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        Files.deleteIfExists(logFile);
        System.setProperty("org.slf4j.simpleLogger.logFile", logFile.toString());
        System.out.printf("token guessing on %s%s over %s: %d regions of %d B, one attacker thread, %.1f s a run%s%n",
                PROVIDER, DEVICE == null ? "" : " (" + DEVICE + ")", ADDRESS.getHostAddress(), regions, REGION,
                seconds, ADDRESSED ? "; the attacker knows every region's address, a guess may hit the one it aims at"
                        : "");
        boolean sound = run("without defences", PeerFaultPolicy.disabled(), "open", seconds, regions, logFile,
                System.out);
        sound &= run("with the standard policy", PeerFaultPolicy.standard(), "guarded", seconds, regions, logFile,
                System.out);
        sound &= run("with a domain per connection", PeerFaultPolicy.disabled(), "scoped", seconds, regions, logFile,
                System.out);
        PeerFaultPolicy standard = PeerFaultPolicy.standard();
        double lastingRate = standard.maxFaults() / (double) standard.window().toSeconds();
        AdapterInfo adapter = adapter();
        if (reportsPeerFaults(adapter)) {
            System.out.printf("the standard policy's lasting rate: %d guesses per %s, so a first hit expected after "
                    + "%.1f years%n", standard.maxFaults(), standard.window(),
                    Math.pow(2, 32) / (reachable(regions) * lastingRate) / SECONDS_PER_YEAR);
        } else {
            System.out.println("the standard policy never engages here: " + adapter.deviceName() + " ("
                    + adapter.transport() + ") tells its host nothing of a request it refused");
        }
        System.exit(sound ? 0 : 1);
    }

    private static AdapterInfo adapter() {
        try (RdmaRuntime runtime = runtime("adapter-").build()) {
            return runtime.adapterInfo();
        }
    }

    /**
     * Whether the provider counts refused requests against the peer: soft does; verbs on InfiniBand and RoCE, whose
     * responder QP breaks on a refusal; not verbs on iWARP (siw), which reports nothing that tells.
     */
    private static boolean reportsPeerFaults(AdapterInfo adapter) {
        return adapter.providerName().equals("soft") || adapter.transport() != AdapterInfo.Transport.IWARP;
    }

    private static InetAddress address(String name) {
        try {
            return name == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(name);
        } catch (IOException e) {
            throw new IllegalArgumentException("-Daddress=" + name + ": " + e.getMessage(), e);
        }
    }

    /** How many regions one guess can hit: any of them where tokens are zero-based, only the aimed-at one else. */
    private static int reachable(int regions) {
        return ADDRESSED ? 1 : regions;
    }

    private static RdmaRuntime.Builder runtime(String threads) {
        RdmaRuntime.Builder builder = RdmaRuntime.builder().provider(PROVIDER).threadNamePrefix(threads);
        return DEVICE == null ? builder : builder.providerOption(PROVIDER + ".device", DEVICE);
    }

    /**
     * Runs the attack against a server with {@code policy}, whose threads are named {@code server-<name>}; returns
     * false when a guess ended other than typed, or a hit brought wrong bytes. The run named "scoped" accepts each
     * connection in a protection domain of its own, empty, so that no guess can reach the regions.
     */
    static boolean run(String label, PeerFaultPolicy policy, String name, double seconds, int regions, Path logFile,
                       PrintStream out) throws Exception {
        try (RdmaRuntime server = runtime("server-" + name).peerFaultPolicy(policy).build();
             RdmaRuntime attacker = runtime("attacker-" + name).build()) {
            ByteBuffer memory = ByteBuffer.allocateDirect(regions * REGION);
            for (int i = 0; i < regions * REGION; i++) {
                memory.put(i, (byte) (i / REGION)); // a region's bytes name it
            }
            long[] addresses = new long[regions];
            for (int i = 0; i < regions; i++) {
                addresses[i] = server.register(memory.slice(i * REGION, REGION), Access.REMOTE_READ).remote()
                        .address();
            }
            RdmaListener listener = server.listen(new InetSocketAddress(ADDRESS, 0));
            if (name.equals("scoped")) {
                listener.onRequest(request -> {
                    ProtectionDomain own = server.protectionDomain();
                    request.inDomain(own).accept().whenComplete((c, e) -> {
                        if (c == null) {
                            own.close();
                        } else {
                            c.disconnected().thenRun(() -> {
                                c.close();
                                own.close();
                            });
                        }
                    });
                });
            } else {
                listener.onRequest(request -> request.accept().thenAccept(c -> c.disconnected().thenRun(c::close)));
            }
            MemoryRegion sink = attacker.register(ByteBuffer.allocateDirect(REGION), Access.LOCAL_WRITE);
            SplittableRandom random = new SplittableRandom();
            Map<Status, Integer> outcomes = new EnumMap<>(Status.class);
            Map<Status, Integer> connectFailures = new EnumMap<>(Status.class);
            long guesses = 0;
            long hits = 0;
            boolean sound = true;
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                RdmaConnection connection;
                try {
                    connection = attacker.connector().connect(listener.localAddress()).start()
                            .get(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RdmaException failure)) {
                        throw e;
                    }
                    connectFailures.merge(failure.status(), 1, Integer::sum); // refused: try again at once
                    continue;
                }
                try {
                    // Guesses on one connection until one fails: the server terminates it then.
                    boolean alive = true;
                    while (alive && System.nanoTime() < end) {
                        long aimedAt = ADDRESSED ? addresses[random.nextInt(regions)] : 0;
                        RemoteBuffer forged = new RemoteBuffer(aimedAt, REGION, random.nextInt());
                        guesses++;
                        CompletableFuture<?> read = connection.read(sink.slice(0, REGION), forged, 0,
                                OperationFlags.NONE);
                        try {
                            read.get(WAIT_SECONDS, TimeUnit.SECONDS);
                            hits++;
                            sound &= brought(sink, out);
                        } catch (ExecutionException e) {
                            alive = false;
                            if (e.getCause() instanceof RdmaException failure) {
                                outcomes.merge(failure.status(), 1, Integer::sum);
                            } else {
                                out.println("a guess failed untyped: " + e.getCause());
                                sound = false;
                            }
                        } catch (TimeoutException e) {
                            out.println("a guess did not end within " + WAIT_SECONDS + " s");
                            return false;
                        }
                    }
                } finally {
                    connection.close();
                }
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            double rate = guesses / elapsed;
            listener.close();
            long warnings = serverWarnings(logFile, "server-" + name);
            String firstHit = name.equals("scoped") ? "never: the connection's domain holds none of the regions"
                    : "at this rate " + span(Math.pow(2, 32) / (reachable(regions) * rate));
            out.printf("%s (%s): guesses %d (%.1f/s), hits %d, expected time to a first hit %s; "
                    + "guesses ended %s; connects failed %s, refused by the policy %d; server WARN lines %d%n",
                    label, policy, guesses, rate, hits, firstHit, outcomes, connectFailures,
                    server.metrics().peerRefusals(), warnings);
            return sound;
        }
    }

    private static String span(double seconds) {
        if (seconds < 3 * 3600) {
            return String.format("%.1f min", seconds / 60);
        } else if (seconds < 2 * 86400) {
            return String.format("%.1f hours", seconds / 3600);
        }
        return seconds < SECONDS_PER_YEAR ? String.format("%.1f days", seconds / 86400)
                : String.format("%.1f years", seconds / SECONDS_PER_YEAR);
    }

    /** Whether the READ brought one region's bytes, whole. */
    private static boolean brought(MemoryRegion sink, PrintStream out) {
        ByteBuffer bytes = sink.buffer();
        byte first = bytes.get(0);
        for (int i = 1; i < REGION; i++) {
            if (bytes.get(i) != first) {
                out.println("a hit brought bytes of no single region");
                return false;
            }
        }
        return true;
    }

    /** The WARN lines the threads named {@code threadPrefix} logged (slf4j-simple names the thread first). */
    private static long serverWarnings(Path logFile, String threadPrefix) throws IOException {
        if (!Files.exists(logFile)) {
            return 0;
        }
        try (var lines = Files.lines(logFile)) {
            return lines.filter(l -> l.startsWith("[" + threadPrefix + "-") && l.contains(" WARN ")).count();
        }
    }
}
