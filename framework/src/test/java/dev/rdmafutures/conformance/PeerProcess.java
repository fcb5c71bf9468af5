package dev.rdmafutures.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A peer that a fault test kills: {@code main} in a JVM of its own on this JVM's class path, which prints a line
 * starting {@code READY} once it serves ({@link KilledPeer}; the KV server of the samples). Its output (standard error
 * merged) is read all along, so a peer that logs never blocks on a full pipe, and is kept for the test's messages.
 * {@link #close} kills it, so no peer outlives its test; a peer may also stop by itself when its standard input, this
 * JVM's end of a pipe, ends.
 */
public final class PeerProcess implements AutoCloseable {
    /** Put after the last line: the peer's output ended (compared by identity, as a peer may print any text). */
    private static final String ENDED = new String("ended");

    private final String name;
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer output = new StringBuffer();
    private final Thread reader;

    private PeerProcess(Class<?> main, Process process) {
        this.name = main.getSimpleName();
        this.process = process;
        reader = new Thread(() -> {
            try (BufferedReader r = process.inputReader(StandardCharsets.UTF_8)) {
                for (String line; (line = r.readLine()) != null; ) {
                    output.append(line).append('\n');
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended: ENDED says so
            } finally {
                lines.add(ENDED);
            }
        }, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} with {@code args}, logging warnings only, with {@code jvmFlags} (e.g. the verbs provider's
     * native library path) before the class name.
     */
    public static PeerProcess start(Class<?> main, List<String> jvmFlags, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(jvmFlags);
        command.add(main.getName());
        command.addAll(args);
        return new PeerProcess(main, new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /**
     * The peer's first line from now on that starts with {@code prefix}, split at spaces; {@link AssertionError}
     * with what it printed if its output ends first or none comes within {@code deadline}.
     */
    public String[] awaitLine(String prefix, Duration deadline) throws InterruptedException {
        long until = System.nanoTime() + deadline.toNanos();
        for (;;) {
            String line = lines.poll(until - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null || line == ENDED) {
                if (line == ENDED) {
                    lines.add(ENDED); // for whoever waits next
                }
                throw new AssertionError(name + (line == null ? " printed no line starting '" + prefix + "' within "
                        + deadline.toMillis() + " ms" : " ended before it printed '" + prefix + "'")
                        + "; its output:\n" + output);
            }
            if (line.startsWith(prefix)) {
                return line.split(" ");
            }
        }
    }

    /**
     * Waits for the peer to end by itself and for the last of its output; its exit status. {@link AssertionError}
     * with what it printed if it still runs after {@code deadline}.
     */
    public int awaitExit(Duration deadline) throws InterruptedException {
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still runs after " + deadline.toMillis() + " ms; its output:\n"
                    + output);
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    /** Kills the peer with SIGKILL; whether it ended within {@code deadline}. */
    public boolean kill(Duration deadline) throws InterruptedException {
        process.destroyForcibly();
        return process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** What the peer printed so far. */
    public String output() {
        return output.toString();
    }

    /** Kills the peer if it still runs. */
    @Override
    public void close() {
        process.destroyForcibly();
    }
}
