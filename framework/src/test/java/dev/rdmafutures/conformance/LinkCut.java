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
 * stay under.
 */
public final class LinkCut {
    private LinkCut() {
    }

    /** Cuts {@code netdev}'s link in both directions; returns once both halves hold. */
    public static void down(String netdev) throws IOException, InterruptedException {
        tcBatch("qdisc add dev " + netdev + " root netem loss 100%\n"
                + "qdisc add dev " + netdev + " ingress\n"
                + "filter add dev " + netdev + " parent ffff: matchall action drop\n");
    }

    /** Restores what {@link #down} cut; returns once traffic flows both ways. */
    public static void up(String netdev) throws IOException, InterruptedException {
        tcBatch("qdisc del dev " + netdev + " ingress\n"
                + "qdisc del dev " + netdev + " root\n");
    }

    private static void tcBatch(String commands) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("tc", "-batch", "-").redirectErrorStream(true).start();
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
