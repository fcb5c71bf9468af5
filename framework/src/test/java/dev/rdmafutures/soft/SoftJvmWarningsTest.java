package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.conformance.PeerProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A soft application prints no JVM warning (issue 25, item 7): {@link SoftReadOnce} in a JVM of its own, started as
 * a user would start it (no flags), connects, reads and closes, and neither the JVM nor a library prints a
 * {@code WARNING:} line (JDK 24 and later print one on the first {@code sun.misc.Unsafe} memory access, JEP 498, or
 * on a restricted method such as {@code System.loadLibrary} without {@code --enable-native-access}, JEP 472) or a
 * {@code VM warning:}. It bites on JDK 24 and later: {@code .ci/run} runs {@code bin/test} on JDK 17 and on JDK 25.
 */
class SoftJvmWarningsTest {

    @Test
    void aSoftApplicationPrintsNoJvmWarning() throws Exception {
        try (PeerProcess app = PeerProcess.start(SoftReadOnce.class, List.of(), List.of())) {
            int status = app.awaitExit(Duration.ofSeconds(60));
            String output = app.output();
            assertThat(status).as("exit status; output:%n%s", output).isZero();
            assertThat(output).contains("READ 26 bytes: read without a JVM warning");
            assertThat(output.lines().filter(line -> line.startsWith("WARNING:") || line.contains("VM warning:")))
                    .as("JVM %s %s; output:%n%s", System.getProperty("java.vm.name"),
                            System.getProperty("java.version"), output)
                    .isEmpty();
        }
    }
}
