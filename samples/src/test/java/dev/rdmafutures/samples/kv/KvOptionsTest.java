package dev.rdmafutures.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.IdleStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KvOptionsTest {
    @Test
    void theDefaultsAreBinKvsAndLaterOptionsWin() {
        KvOptions defaults = KvOptions.parse();
        assertThat(defaults.provider()).isEqualTo("soft");
        assertThat(defaults.address().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(defaults.load()).isEqualTo(LoadSpec.timed(8, 16, 10_000, 128, 0.9, Duration.ofSeconds(2),
                Duration.ofSeconds(10)));
        assertThat(defaults.waiting()).isEqualTo(new Waiting(IdleStrategy.YIELD, IdleStrategy.BACKOFF));
        assertThat(defaults.services()).containsExactly("RDMA", "TCP");
        assertThat(defaults.json()).isNull();
        assertThat(KvOptions.parse("--json", "raw/kv.json").json()).isEqualTo(Path.of("raw/kv.json"));
        KvOptions o = KvOptions.parse("--provider", "verbs", "--device", "rxe0", "--window", "2", "--window", "4",
                "--duration", "0.5", "--idle", "BLOCKING", "--client-idle", "BUSY_SPIN", "--provider-option",
                "verbs.x=a=b", "--services", "tcp");
        assertThat(o.device()).isEqualTo("rxe0");
        assertThat(o.waiting()).isEqualTo(new Waiting(IdleStrategy.BUSY_SPIN, IdleStrategy.BLOCKING));
        assertThat(o.services()).containsExactly("TCP");
        assertThat(KvOptions.parse("--services", "tcp,RDMA").services()).containsExactly("RDMA", "TCP");
        assertThat(KvOptions.parse("--services", "rdma").services()).containsExactly("RDMA");
        assertThat(o.options()).isEqualTo(Map.of("verbs.x", "a=b"));
        assertThat(o.load().window()).isEqualTo(4);
        assertThat(o.load().duration()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void badOptionsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> KvOptions.parse("--windows", "4")).hasMessageContaining("unknown option --windows");
        assertThatThrownBy(() -> KvOptions.parse("--keys")).hasMessageContaining("--keys needs a value");
        assertThatThrownBy(() -> KvOptions.parse("--keys", "many")).hasMessageContaining("needs a number");
        assertThatThrownBy(() -> KvOptions.parse("--value-size", "8")).hasMessageContaining("value size");
        assertThatThrownBy(() -> KvOptions.parse("--get-ratio", "1.5")).hasMessageContaining("GET ratio");
        assertThatThrownBy(() -> KvOptions.parse("--duration", "0")).hasMessageContaining("--duration");
        assertThatThrownBy(() -> KvOptions.parse("--idle", "SLEEPY")).hasMessageContaining("BLOCKING");
        // An application-driven runtime cannot block its owner: neither client may, so that both wait alike.
        assertThatThrownBy(() -> KvOptions.parse("--client-idle", "BLOCKING"))
                .hasMessageContaining("--client-idle must be one of [YIELD, BUSY_SPIN]");
        assertThatThrownBy(() -> KvOptions.parse("--services", "udp")).hasMessageContaining("--services");
        assertThatThrownBy(() -> KvOptions.parse("--services", "")).hasMessageContaining("--services");
        assertThatThrownBy(() -> KvOptions.parse("--provider-option", "soft.crc")).hasMessageContaining("KEY=VALUE");
    }
}
