package dev.rdmafutures.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaRuntime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The KV service end to end on the soft provider over loopback, and its TCP twin. */
class KvServiceTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int KEYS = 300;
    private static final int VALUE = 64;
    private static final Waiting WAITING = new Waiting(IdleStrategy.YIELD, IdleStrategy.BACKOFF);

    @ParameterizedTest
    @ValueSource(strings = {"RDMA", "TCP"})
    void everyGetReturnsWhatTheLastAcknowledgedPutWrote(String kind) throws Exception {
        LoadSpec mixed = LoadSpec.timed(3, 4, KEYS, VALUE, 0.6, Duration.ZERO, Duration.ofMillis(800));
        try (KvService service = service(kind, mixed)) {
            Expectations expectations = new Expectations(KEYS);
            RunResult load = service.run(mixed, expectations);
            assertThat(load.failure()).isNull();
            assertThat(load.throughput()).isPositive();
            assertThat(load.gets()).isPositive();
            assertThat(load.puts()).isPositive();
            assertThat(load.latency().getTotalCount()).isEqualTo(load.operations());

            // No PUT outstanding now: every GET must return exactly the last acknowledged value of its key.
            expectations.quiesce();
            RunResult check = service.run(mixed.withGetRatio(1), expectations);
            assertThat(check.failure()).isNull();
            assertThat(check.gets()).isGreaterThan(KEYS / 2);
            assertThat(check.puts()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {VALUE, KvLayout.INLINE_MAX + 1})
    void theTcpTwinGivesTheSameAnswersAndAGetIsOneReadWhenValuesAreInline(int valueSize) throws Exception {
        // One connection, one operation at a time, the same seed: the same operations in the same order.
        LoadSpec script = new LoadSpec(1, 1, 50, valueSize, 0.5, Duration.ZERO, Duration.ZERO, 400, 7);
        RunResult rdma;
        try (KvService service = service("RDMA", script)) {
            rdma = service.run(script, new Expectations(script.keys()));
        }
        RunResult tcp;
        try (KvService service = service("TCP", script)) {
            tcp = service.run(script, new Expectations(script.keys()));
        }
        assertThat(rdma.failure()).isNull();
        assertThat(tcp.failure()).isNull();
        assertThat(rdma.operations()).isEqualTo(400);
        assertThat(tcp.gets()).isEqualTo(rdma.gets());
        assertThat(tcp.digest()).isNotZero().isEqualTo(rdma.digest());
        // Every one of these 50 keys lies within the neighbourhood READ from its home slot.
        assertThat(rdma.getTrips()).isEqualTo(valueSize <= KvLayout.INLINE_MAX ? rdma.gets() : 2 * rdma.gets());
        assertThat(tcp.getTrips()).isEqualTo(tcp.gets());
        assertThat(rdma.tornReads()).isZero();
    }

    @Test
    void aTornSlotIsReadAgainAndNeverAccepted() throws Exception {
        KvStore store = KvStore.preloaded(KEYS, VALUE);
        LoadSpec oneGet = new LoadSpec(1, 1, 1, VALUE, 1, Duration.ZERO, Duration.ZERO, 1, 1); // key 0
        int valueByte = slotOf(store, 0) + IndexSlot.HEADER_BYTES + 20;
        // A server that never blocks answers the 10,001 READs of the first run in a fraction of the time.
        Waiting polling = new Waiting(IdleStrategy.YIELD, IdleStrategy.YIELD);
        try (KvService service = KvService.rdma(RdmaRuntime::builder, LOOPBACK, store, 1, polling)) {
            // As a READ racing a rewrite sees it, for as long as the client keeps reading.
            store.index().put(valueByte, (byte) ~store.index().get(valueByte));
            RunResult torn = service.run(oneGet, new Expectations(1));
            assertThat(torn.failure()).contains("read nothing consistent");
            assertThat(torn.tornReads()).isEqualTo(RdmaKvConnection.MAX_RETRIES + 1);
            assertThat(torn.gets()).isZero();

            store.index().put(valueByte, (byte) ~store.index().get(valueByte));
            RunResult whole = service.run(oneGet, new Expectations(1));
            assertThat(whole.failure()).isNull();
            assertThat(whole.gets()).isEqualTo(1);
            assertThat(whole.getTrips()).isEqualTo(1);
        }
    }

    /** As {@link #aTornSlotIsReadAgainAndNeverAccepted}, for a GET that starts from the key's known slot. */
    @Test
    void aTornKnownSlotIsReadAgainAndNeverAccepted() throws Exception {
        KvStore store = KvStore.preloaded(KEYS, VALUE);
        LoadSpec oneGet = new LoadSpec(1, 1, 1, VALUE, 1, Duration.ZERO, Duration.ZERO, 1, 1); // key 0
        int slotAt = slotOf(store, 0);
        int valueByte = slotAt + IndexSlot.HEADER_BYTES + 20;
        SlotCache known = new SlotCache(1);
        known.remember(0, slotAt / store.layout().slotBytes());
        RdmaRuntime serverRuntime = RdmaRuntime.builder().pollerThreads(1).idleStrategy(IdleStrategy.YIELD).build();
        try (RdmaKvServer server = new RdmaKvServer(serverRuntime, new InetSocketAddress(LOOPBACK, 0), store, 1);
             RdmaRuntime client = RdmaRuntime.builder().pollerThreads(0).build()) {
            store.index().put(valueByte, (byte) ~store.index().get(valueByte));
            RunResult torn = RdmaKvClient.run(client, server.address(), oneGet, new Expectations(1),
                    IdleStrategy.YIELD, null, known);
            assertThat(torn.failure()).contains("read nothing consistent");
            assertThat(torn.tornReads()).isEqualTo(RdmaKvConnection.MAX_RETRIES + 1);
            assertThat(torn.gets()).isZero();
            assertThat(known.hits()).as("the GET started from the known slot").isEqualTo(1);

            store.index().put(valueByte, (byte) ~store.index().get(valueByte));
            RunResult whole = RdmaKvClient.run(client, server.address(), oneGet, new Expectations(1),
                    IdleStrategy.YIELD, null, known);
            assertThat(whole.failure()).isNull();
            assertThat(whole.gets()).isEqualTo(1);
            assertThat(whole.getTrips()).isEqualTo(1);
            assertThat(known.hits()).isEqualTo(2);
        }
    }

    /**
     * A client that believes every key lives in another key's slot, or in an empty one, still returns every value
     * right, inline or in the heap: the one-slot READ finds another key or none there, and the GET searches from the
     * key's home. What it then knows is the truth, so the next GET of each key READs only the key's slot (and, for a
     * value in the heap, its record).
     */
    @ParameterizedTest
    @ValueSource(ints = {VALUE, KvLayout.INLINE_MAX + 1})
    void aGetWhoseKnownSlotHoldsAnotherKeySearchesFromItsHome(int valueSize) throws Exception {
        int keys = 40;
        KvStore store = KvStore.preloaded(keys, valueSize);
        KvLayout layout = store.layout();
        int empty = 0;
        while (IndexSlot.version(store.index(), empty * layout.slotBytes()) != 0) {
            empty++;
        }
        SlotCache misinformed = new SlotCache(keys);
        for (int key = 0; key < keys; key++) {
            misinformed.remember(key, key % 2 == 0 ? slotOf(store, (key + 1) % keys) / layout.slotBytes() : empty);
        }
        // 40 GETs per key, of random keys from a fixed seed: every key is read.
        LoadSpec everyKey = new LoadSpec(1, 1, keys, valueSize, 1, Duration.ZERO, Duration.ZERO, 40L * keys, 3);
        RdmaRuntime serverRuntime = RdmaRuntime.builder().pollerThreads(1).build();
        try (RdmaKvServer server = new RdmaKvServer(serverRuntime, new InetSocketAddress(LOOPBACK, 0), store, 16);
             RdmaRuntime client = RdmaRuntime.builder().pollerThreads(0).build()) {
            RunResult run = RdmaKvClient.run(client, server.address(), everyKey, new Expectations(keys),
                    IdleStrategy.YIELD, null, misinformed);
            assertThat(run.failure()).isNull();
            assertThat(run.gets()).isEqualTo(40L * keys);
            for (int key = 0; key < keys; key++) {
                assertThat(misinformed.slotOf(key, layout.capacity())).as("key %d's slot", key)
                        .isEqualTo(slotOf(store, key) / layout.slotBytes());
            }

            long hitsBefore = misinformed.hits();
            RunResult again = RdmaKvClient.run(client, server.address(), everyKey, new Expectations(keys),
                    IdleStrategy.YIELD, null, misinformed);
            assertThat(again.failure()).isNull();
            int readsPerGet = layout.inline() ? 1 : 2;
            assertThat(again.getTrips()).as("READs once every slot is known").isEqualTo(readsPerGet * again.gets());
            assertThat(misinformed.hits() - hitsBefore).as("GETs that READ only the key's slot")
                    .isEqualTo(again.gets());
        }
    }

    @Test
    void theBenchPrintsBothServicesAndTheirRatiosAndWritesTheSameAsJson(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        Path json = dir.resolve("kv.json");
        int status = KvBench.run(new String[] {"--connections", "2", "--window", "3", "--duration", "0.4",
            "--warmup", "0.1", "--keys", "200", "--value-size", "40", "--json", json.toString()},
                new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String out = buffer.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isZero();
        assertThat(out).contains("RDMA: soft/").contains("RDMA/TCP").contains("RDMA: every value read was checked: OK")
                .contains("TCP: every value read was checked: OK")
                .contains("GET: values inline in 72-B index slots (up to 1024 B): one READ of 8 slots over RDMA, of "
                        + "the key's slot once the client knows it; one request over TCP")
                .contains("RDMA: client thread: the load thread, polling its application-driven runtime (idle YIELD)\n"
                        + "        server thread: the server runtime's one poller (idle BACKOFF)")
                .contains("TCP:  client thread: the load thread, polling its selector with selectNow (idle YIELD)\n"
                        + "        server thread: one selector loop (idle BACKOFF)");
        // The report's table is bin/kv's: the JSON holds the header lines and the ratio row's numbers as printed.
        String written = Files.readString(json);
        assertThat(written).contains("\"--json\"", "\"  GET: values inline in 72-B index slots",
                "\"        server thread: the server runtime's one poller (idle BACKOFF)\"", "\"service\": \"TCP\"",
                "\"ok\": true, \"failure\": null");
        Matcher printed = Pattern.compile("RDMA/TCP +([0-9.]+)x +([0-9.]+)x").matcher(out);
        Matcher ratios = Pattern.compile("\"ratios\": \\{\"ops_per_s\": ([0-9.]+), \"p50\": ([0-9.]+)")
                .matcher(written);
        assertThat(printed.find() && ratios.find()).as(out + written).isTrue();
        for (int i = 1; i <= 2; i++) {
            assertThat(String.format(Locale.ROOT, "%.2f", Double.parseDouble(ratios.group(i))))
                    .isEqualTo(printed.group(i));
        }
        assertThat(KvBench.run(new String[] {"--window", "0"}, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))).isEqualTo(2);
    }

    @Test
    void oneServiceRunsAloneWithoutARatio() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int status = KvBench.run(new String[] {"--services", "tcp", "--connections", "1", "--window", "2",
            "--duration", "0.2", "--warmup", "0", "--keys", "100", "--idle", "YIELD", "--client-idle",
            "BUSY_SPIN"}, new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String out = buffer.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isZero();
        assertThat(out).contains("TCP:  client thread: the load thread, polling its selector with selectNow (idle "
                + "BUSY_SPIN)\n        server thread: one selector loop (idle YIELD)")
                .contains("TCP: every value read was checked: OK")
                .doesNotContain("RDMA:").doesNotContain("RDMA/TCP");
    }

    private static KvService service(String kind, LoadSpec spec) throws Exception {
        KvStore store = KvStore.preloaded(spec.keys(), spec.valueSize());
        return kind.equals("RDMA")
                ? KvService.rdma(RdmaRuntime::builder, LOOPBACK, store, spec.connections() * spec.window(), WAITING)
                : KvService.tcp(LOOPBACK, store, WAITING);
    }

    /** The offset of {@code key}'s slot in the store's index, as the server keeps it. */
    private static int slotOf(KvStore store, long key) {
        KvLayout layout = store.layout();
        for (int s = layout.home(key); ; s = (s + 1) & (layout.capacity() - 1)) {
            int at = s * layout.slotBytes();
            if (IndexSlot.version(store.index(), at) != 0 && IndexSlot.key(store.index(), at) == key) {
                return at;
            }
        }
    }
}
