package dev.rdmafutures.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Cuts this host's side of a link silently, as the VM pair's fault tests do ({@code LinkCutPair}, the KV service's
 * {@code KvLinkCutPair}): nothing leaves ({@code tc netem loss 100%}), nothing is taken in (an {@code iptables} rule);
 * no reset, no DREQ, and the port stays up, so only deadlines can tell. Needs root, {@code tc} and {@code iptables}:
 * the VM's guest has them.
 */
public final class LinkCut {
    private LinkCut() {
    }

    /** Cuts {@code netdev}'s link. */
    public static void down(String netdev) throws IOException, InterruptedException {
        run("tc", "qdisc", "add", "dev", netdev, "root", "netem", "loss", "100%");
        run("iptables", "-I", "INPUT", "-i", netdev, "-j", "DROP");
    }

    /** Restores what {@link #down} cut. */
    public static void up(String netdev) throws IOException, InterruptedException {
        run("iptables", "-D", "INPUT", "-i", netdev, "-j", "DROP");
        run("tc", "qdisc", "del", "dev", netdev, "root");
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}
