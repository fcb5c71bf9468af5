package dev.rdmafutures.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoTest {
    @Test
    void theDemoNegotiatesRejectsAndShutsDownCleanly() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int status = Demo.run("soft", new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String out = buffer.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isZero();
        assertThat(out).contains("negotiated read limits: inbound=2 outbound=6")
                .contains("server's private data: \"welcome, alice\"")
                .contains("rejected: status=CONNECTION_REFUSED retryable=true")
                .contains("server's reject private data: \"not on the list: mallory\"")
                .contains("disconnected: LOCAL_DISCONNECT")
                .containsPattern("metrics: \\d+ operations posted, \\d+ completed, 0 failed")
                .contains("connections: 1 connected, 1 accepted, 1 rejected, 1 connect failures {CONNECTION_REFUSED=1}, 2 open")
                .containsPattern("poller rdmafutures-poller-0: [1-9]\\d* duty cycles")
                .containsPattern("verdict: an 8 B READ takes \\d+\\.\\d\\dx the TCP round trip \\((RDMA|TCP) is faster\\); 64 KiB READs move \\d+\\.\\d\\dx a TCP stream")
                .contains("demo finished: OK");
        Matcher rate = Pattern.compile("READ (\\d+) ops/s \\| TCP (\\d+) requests/s   ratio (\\d+\\.\\d\\d)x")
                .matcher(out);
        assertThat(rate.find()).as(out).isTrue();
        // Both sides completed operations and the ratio is theirs. No bounds on the rates: on a shared 2-core machine
        // whose cores two VMs took, the ratio swung from 0.04x to 25x between runs (bin/bench's MessageRate too).
        long reads = Long.parseLong(rate.group(1));
        long requests = Long.parseLong(rate.group(2));
        assertThat(reads).isPositive();
        assertThat(requests).isPositive();
        double quotient = (double) reads / requests; // of the rounded rates: 2% for that, 0.005 for the ratio's own
        assertThat(Double.parseDouble(rate.group(3))).isCloseTo(quotient, within(0.005 + 0.02 * quotient));
        assertThat(out).containsPattern("verdict: 8 B READs with 16 in flight complete at \\d+\\.\\d\\dx the rate of "
                + "pipelined TCP requests \\((RDMA|TCP) is faster\\)");
    }
}
