package dev.rdmafutures.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile peer of {@code bin/faults}, run as a user runs it (its own JVM, which sends slf4j-simple's lines to a
 * file): every guess ends typed, and however many it makes, the server logs one WARN line for them.
 */
class TokenGuessingTest {
    @Test
    void guessesEndTypedAndCostTheServerOneWarnLine(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("guessing.log");
        Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), TokenGuessing.class.getName(), "2", "100",
                log.toString())).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        Matcher guesses = Pattern.compile("guesses (\\d+) \\(\\d+/s\\), hits (\\d+)").matcher(out);
        assertThat(guesses.find()).as(out).isTrue();
        long made = Long.parseLong(guesses.group(1));
        assertThat(made).as("guesses in 2 s").isGreaterThan(10);
        // A hit is possible (about 1 in 10^5 runs at this rate) and proves nothing against the rest.
        long hits = Long.parseLong(guesses.group(2));
        assertThat(out).contains("guesses ended {ACCESS_VIOLATION=" + (made - hits) + "}")
                .contains("server WARN lines logged: 1 ");
        assertThat(Files.readString(log)).contains("WARN dev.rdmafutures.soft.PeerFaultLog - terminating connection");
    }
}
