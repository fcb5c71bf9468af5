package dev.rdmafutures.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile peer of {@code bin/faults}, run as a user runs it (its own JVM, which sends slf4j-simple's lines to a
 * file): every guess ends typed, however many it makes the server logs one WARN line for them, and
 * {@code PeerFaultPolicy.standard()} holds it to the few guesses its first back-offs allow, and with a protection
 * domain per connection no guess can hit.
 */
class TokenGuessingTest {
    private static final Pattern RUN = Pattern.compile("(without defences|with the standard policy"
            + "|with a domain per connection) \\(.*?\\): guesses (\\d+) \\(.*?/s\\), hits (\\d+), .*?; "
            + "guesses ended \\{(.*?)\\}; connects failed .*?, refused by the policy (\\d+); server WARN lines (\\d+)");

    @Test
    void guessesEndTypedCostTheServerOneWarnLineAndTheDefaultPolicyHoldsThemOff(@TempDir Path dir)
            throws Exception {
        Path log = dir.resolve("guessing.log");
        Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), TokenGuessing.class.getName(), "2", "100",
                log.toString())).redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String out = output.get(10, TimeUnit.SECONDS);
        assertThat(ended).as("ended within 60 s: %s", out).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        Matcher run = RUN.matcher(out);

        assertThat(run.find()).as(out).isTrue();
        assertThat(run.group(1)).isEqualTo("without defences");
        long open = Long.parseLong(run.group(2));
        assertThat(open).as("guesses in 2 s without defences").isGreaterThan(10);
        // A hit is possible (about 1 in 10^5 runs at this rate) and proves nothing against the rest.
        assertThat(run.group(4)).isEqualTo("ACCESS_VIOLATION=" + (open - Long.parseLong(run.group(3))));
        assertThat(run.group(5)).as("refused without defences").isEqualTo("0");
        assertThat(run.group(6)).as("WARN lines for %d guesses", open).isEqualTo("1");

        assertThat(run.find()).as(out).isTrue();
        assertThat(run.group(1)).isEqualTo("with the standard policy");
        long guarded = Long.parseLong(run.group(2));
        // 8 faults fill the bucket and start a back-off of 1 s; after it one more starts the next, of 2 s.
        assertThat(guarded).as(out).isBetween(8L, 12L);
        assertThat(Long.parseLong(run.group(5))).as("connects refused by the policy").isPositive();
        assertThat(run.group(6)).isEqualTo("1");

        assertThat(run.find()).as(out).isTrue();
        assertThat(run.group(1)).isEqualTo("with a domain per connection");
        long scoped = Long.parseLong(run.group(2));
        assertThat(scoped).as("guesses in 2 s with a domain per connection").isGreaterThan(10);
        assertThat(run.group(3)).as("hits: the connection's domain holds no region").isEqualTo("0");
        assertThat(run.group(4)).isEqualTo("ACCESS_VIOLATION=" + scoped);

        assertThat(Files.readString(log))
                .contains("WARN dev.rdmafutures.providerkit.PeerFaultLog - terminating connection");
    }
}
