package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
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
 * connects again whenever the server terminates the connection, as it does after each wrong guess. Prints the
 * guesses per second, the hits (READs that brought a region's bytes), the expected time to a first hit at that rate
 * (2^32 / (regions x rate)), how each guess ended, and the WARN lines the server logged meanwhile: what a hostile
 * peer costs today, before protection domains and per-address back-off.
 *
 * <p>Usage: {@code TokenGuessing [seconds (10)] [regions (1000)] [logFile (target/token-guessing.log)]}; soft on
 * loopback. The log file receives every line slf4j-simple writes (the program sets it before the first logger).
 */
public final class TokenGuessing {
    private static final int REGION = 64;
    private static final long WAIT_SECONDS = 10;

    private TokenGuessing() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        int regions = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path logFile = Path.of(args.length > 2 ? args[2] : "target/token-guessing.log");
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        Files.deleteIfExists(logFile);
        System.setProperty("org.slf4j.simpleLogger.logFile", logFile.toString());
        System.exit(run(seconds, regions, logFile, System.out) ? 0 : 1);
    }

    /** Runs the attack; returns false when a guess ended other than typed, or a hit brought wrong bytes. */
    static boolean run(double seconds, int regions, Path logFile, PrintStream out) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (RdmaRuntime server = RdmaRuntime.builder().threadNamePrefix("server").build();
             RdmaRuntime attacker = RdmaRuntime.builder().threadNamePrefix("attacker").build()) {
            ByteBuffer memory = ByteBuffer.allocateDirect(regions * REGION);
            for (int i = 0; i < regions * REGION; i++) {
                memory.put(i, (byte) (i / REGION)); // a region's bytes name it
            }
            for (int i = 0; i < regions; i++) {
                server.register(memory.slice(i * REGION, REGION), Access.REMOTE_READ);
            }
            RdmaListener listener = server.listen(new InetSocketAddress(loopback, 0));
            listener.onRequest(request -> request.accept().thenAccept(c -> c.disconnected().thenRun(c::close)));
            MemoryRegion sink = attacker.register(ByteBuffer.allocateDirect(REGION), Access.LOCAL_WRITE);
            SplittableRandom random = new SplittableRandom();
            Map<Status, Integer> outcomes = new EnumMap<>(Status.class);
            long guesses = 0;
            long hits = 0;
            boolean sound = true;
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                RdmaConnection connection = attacker.connector().connect(listener.localAddress()).start()
                        .get(WAIT_SECONDS, TimeUnit.SECONDS);
                try {
                    // Guesses on one connection until one fails: the server terminates it then.
                    boolean alive = true;
                    while (alive && System.nanoTime() < end) {
                        RemoteBuffer forged = new RemoteBuffer(0, REGION, random.nextInt());
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
            double expectedSeconds = Math.pow(2, 32) / (regions * rate);
            listener.close();
            out.printf("token guessing on soft over loopback: %d regions of %d B, one attacker thread, %.1f s%n",
                    regions, REGION, elapsed);
            out.printf("guesses %d (%.0f/s), hits %d, expected time to a first hit %.1f min; guesses ended %s%n",
                    guesses, rate, hits, expectedSeconds / 60, outcomes);
            long warnings = serverWarnings(logFile);
            out.printf("server WARN lines logged: %d (%.1f/s)%n", warnings, warnings / elapsed);
            return sound;
        }
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

    /** The WARN lines the server's threads logged (slf4j-simple names the thread first). */
    private static long serverWarnings(Path logFile) throws IOException {
        if (!Files.exists(logFile)) {
            return 0;
        }
        try (var lines = Files.lines(logFile)) {
            return lines.filter(l -> l.startsWith("[server-") && l.contains(" WARN ")).count();
        }
    }
}
