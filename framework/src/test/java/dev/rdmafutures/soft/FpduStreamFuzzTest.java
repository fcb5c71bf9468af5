package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.PeerFaultPolicy;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Tag;

/**
 * Coverage-guided fuzzing (Jazzer) of soft's DDP/RDMAP stream parser and placement, through a real connection: after
 * a correct MPA exchange, each input becomes a run of correctly framed FPDUs (length, padding, CRC) whose ULPDUs the
 * fuzzer chooses, some of them aimed at the endpoint's real STags, then a Read Request that the endpoint answers
 * once it has dealt with everything before it (or it ends the connection). Nothing may escape into the poller, the
 * bytes around a writable region and a read-only region must never change, and the endpoint must answer. The
 * committed corpus runs in every build; {@code JAZZER_FUZZ=1} fuzzes.
 */
@Tag("jazzer") // its own test JVM, without -Xcheck:jni (framework/pom.xml)
class FpduStreamFuzzTest {
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static Endpoint endpoint;

    /** One soft runtime for every input: a listener that accepts and posts two receives, and its regions. */
    private static final class Endpoint {
        // Every input comes from this host's address, and most are faults: without the default PeerFaultPolicy,
        // which would soon refuse the address and leave the inputs untried.
        final RdmaRuntime runtime = RdmaRuntime.builder().peerFaultPolicy(PeerFaultPolicy.disabled()).build();
        final GuardedMemory memory = new GuardedMemory(runtime);
        final int[] tokens;
        final RdmaListener listener;

        Endpoint() {
            MemoryRegion rx = runtime.register(ByteBuffer.allocateDirect(256), Access.LOCAL_WRITE);
            tokens = new int[] {memory.readOnly.token(), memory.writable.token(), rx.token()};
            listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.onRequest(r -> r.withReadLimits(4, 4).accept().thenAccept(c -> {
                c.receive(rx.slice(0, 128));
                c.receive(rx.slice(128, 128));
            }));
        }
    }

    private static synchronized Endpoint endpoint() {
        if (endpoint == null) {
            endpoint = new Endpoint();
        }
        return endpoint;
    }

    @FuzzTest(maxDuration = "60s")
    void framedUlpdusNeverEscapeTheirConnection(FuzzedDataProvider data) throws Exception {
        // The target is a connection: to the endpoint's loopback listener, whose address is ours, not the input's.
        BugDetectors.allowNetworkConnections((host, port) -> InetAddress.getLoopbackAddress().getHostName().equals(host)
                || InetAddress.getLoopbackAddress().getHostAddress().equals(host) || "localhost".equals(host));
        Endpoint e = endpoint();
        try (RawPeer peer = RawPeer.connect((InetSocketAddress) e.listener.localAddress(), ANSWER).readReply()) {
            int ulpdus = data.consumeInt(0, 8);
            for (int i = 0; i < ulpdus; i++) {
                byte[] ulpdu = data.consumeBytes(data.consumeInt(0, 600));
                if (ulpdu.length >= 6 && data.consumeBoolean()) {
                    // Aim a tagged header's STag (bytes 2..5) at one of the endpoint's real STags.
                    ByteBuffer.wrap(ulpdu).putInt(2, e.tokens[data.consumeInt(0, e.tokens.length - 1)]);
                }
                peer.send(ByteBuffer.wrap(ulpdu));
            }
            peer.send(RawPeer.readRequest(1, 0x1, 0, 1, e.tokens[0], 0));
            assertThat(peer.answered()).as("the endpoint answered within %s", ANSWER).isTrue();
        } catch (IOException endedFirst) {
            // the endpoint may end the connection before we finish writing: a correct answer to a hostile peer
        }
        assertThat(e.runtime.pollerErrorCount()).as("errors that escaped into the poller").isZero();
        assertThat(e.memory.guards()).as("bytes around the writable region").isEqualTo(e.memory.guardsBefore());
        assertThat(e.memory.readOnlyBytes()).as("the read-only region").isEqualTo(e.memory.readOnlyBefore());
    }
}
