package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The statuses only a network can produce (NETWORK_UNREACHABLE, HOST_UNREACHABLE, TOO_MANY_ADDRESSES,
 * INSUFFICIENT_RESOURCES), produced for real: a child JVM runs {@link NamespaceScenarios} in a private user and
 * network namespace ({@code unshare -rn}) with only loopback up, an unreachable route, two ephemeral ports and 512
 * descriptors. Skipped, with the reason, where unprivileged namespaces or iproute2 are missing.
 */
class NetworkStatusesInNamespaceTest {
    private static Map<String, String> outcomes;

    private static String run(List<String> command, long seconds) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean done = p.waitFor(seconds, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
            throw new AssertionError("timed out after " + seconds + " s: " + out);
        }
        return p.exitValue() + "\n" + out;
    }

    @BeforeAll
    static void runScenariosInANamespace() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")), "skipped: /usr/bin/unshare (util-linux) missing");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip")),
                "skipped: the ip command (iproute2) is missing");
        String probe = run(List.of("unshare", "-rn", "true"), 20);
        assumeTrue(probe.startsWith("0\n"), "skipped: unprivileged user+network namespaces are not allowed here: "
                + probe.strip());

        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path cpFile = Files.createTempFile("rdmafutures-ns", ".classpath");
        Files.writeString(cpFile, classpath.replace(File.pathSeparatorChar, ':'));
        String script = String.join(" && ",
                "ip link set lo up",
                "ip route add unreachable 203.0.113.0/24",
                "echo '50000 50001' > /proc/sys/net/ipv4/ip_local_port_range",
                "ulimit -n 512",
                "exec '" + java + "' -cp \"$(cat '" + cpFile + "')\" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "
                        + NamespaceScenarios.class.getName());
        String result;
        try {
            result = run(List.of("unshare", "-rn", "sh", "-c", script), 120);
        } finally {
            Files.deleteIfExists(cpFile);
        }
        assertThat(result).as("scenario run").startsWith("0\n");
        outcomes = new HashMap<>();
        for (String line : result.split("\n")) {
            String[] words = line.trim().split(" ", 2);
            if (words.length == 2 && words[0].matches("[a-z-]+")) {
                outcomes.put(words[0], words[1]);
            }
        }
    }

    @Test
    void noRouteToTheNetworkIsNetworkUnreachable() {
        assertThat(outcomes).containsEntry("network-unreachable", "NETWORK_UNREACHABLE");
    }

    @Test
    void anUnreachableHostIsHostUnreachable() {
        assertThat(outcomes).containsEntry("host-unreachable", "HOST_UNREACHABLE");
    }

    @Test
    void runningOutOfEphemeralPortsIsTooManyAddresses() {
        assertThat(outcomes).containsEntry("ephemeral-ports-exhausted", "TOO_MANY_ADDRESSES after 2");
        assertThat(outcomes).containsEntry("shared-endpoint-no-port", "TOO_MANY_ADDRESSES");
    }

    @Test
    void runningOutOfDescriptorsIsInsufficientResourcesAndTheRuntimeRecovers() {
        assertThat(outcomes).containsEntry("descriptors-exhausted", "INSUFFICIENT_RESOURCES");
        assertThat(outcomes).containsEntry("serves-after", "OK");
    }
}
