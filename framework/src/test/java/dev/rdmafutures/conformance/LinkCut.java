package dev.rdmafutures.conformance;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Cuts this host's side of a link silently, as the VM pair's fault tests do ({@code LinkCutPair}, the KV service's
 * {@code KvLinkCutPair}): nothing leaves (a {@code netem loss 100%} root qdisc), nothing is taken in (a
 * {@code matchall} drop filter on the ingress qdisc); no reset, no DREQ, and the port stays up, so only deadlines can
 * tell. Needs root and {@code tc}: the VM's guest has them.
 *
 * <p>Each of {@link #down} and {@link #up} is one {@code tc -batch} process. A process start costs the 1-vCPU TCG
 * guest about a second under load, so a cut assembled from four commands (as with {@code iptables} beside
 * {@code tc}) ran seconds longer than the caller slept, and a "short" cut outlasted the deadline it was meant to
 * stay under. A cut whose length matters is {@link #prepare}d: both processes start before it, and wait for their
 * commands.
 */
public final class LinkCut implements AutoCloseable {
    private final String netdev;
    private final Process downBatch;
    private final Process upBatch;

    private LinkCut(String netdev, Process downBatch, Process upBatch) {
        this.netdev = netdev;
        this.downBatch = downBatch;
        this.upBatch = upBatch;
    }

    /**
     * Starts the two {@code tc} processes of one cut of {@code netdev}, waiting for their commands, so that
     * {@link #cut()} and {@link #restore()} cost no process start. Close it after {@link #restore()}.
     */
    public static LinkCut prepare(String netdev) throws IOException {
        Process downBatch = startBatch();
        try {
            return new LinkCut(netdev, downBatch, startBatch());
        } catch (IOException e) {
            downBatch.destroyForcibly();
            throw e;
        }
    }

    /** Cuts the link with the prepared process; returns once both halves hold. */
    public void cut() throws IOException, InterruptedException {
        run(downBatch, downCommands(netdev));
    }

    /** Restores what {@link #cut()} cut with the prepared process; returns once traffic flows both ways. */
    public void restore() throws IOException, InterruptedException {
        run(upBatch, upCommands(netdev));
    }

    /** Ends a process whose commands were never given (a cut that failed before its restore, say). */
    @Override
    public void close() {
        downBatch.destroyForcibly();
        upBatch.destroyForcibly();
    }

    /** Cuts {@code netdev}'s link in both directions; returns once both halves hold. */
    public static void down(String netdev) throws IOException, InterruptedException {
        run(startBatch(), downCommands(netdev));
    }

    /** Restores what {@link #down} cut; returns once traffic flows both ways. */
    public static void up(String netdev) throws IOException, InterruptedException {
        run(startBatch(), upCommands(netdev));
    }

    private static String downCommands(String netdev) {
        return "qdisc add dev " + netdev + " root netem loss 100%\n"
                + "qdisc add dev " + netdev + " ingress\n"
                + "filter add dev " + netdev + " parent ffff: matchall action drop\n";
    }

    private static String upCommands(String netdev) {
        return "qdisc del dev " + netdev + " ingress\n"
                + "qdisc del dev " + netdev + " root\n";
    }

    private static Process startBatch() throws IOException {
        return new ProcessBuilder("tc", "-batch", "-").redirectErrorStream(true).start();
    }

    /** Gives {@code process} its commands (it runs them as it reads them) and waits for it to end. */
    private static void run(Process process, String commands) throws IOException, InterruptedException {
        try (OutputStream in = process.getOutputStream()) {
            in.write(commands.getBytes(StandardCharsets.US_ASCII));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException("tc -batch failed on\n" + commands + output);
        }
    }
}
