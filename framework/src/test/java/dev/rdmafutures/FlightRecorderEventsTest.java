package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK Flight Recorder events a runtime emits while a recording enables them: connections established (both
 * sides) and ended with their reason, a connect that failed with its status, and operations slower than the
 * runtime's threshold with their kind, size and outcome.
 */
class FlightRecorderEventsTest {
    private static final long WAIT = 20;

    @Test
    void connectionLifecycleAndSlowOperationsAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rdma.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.rdmafutures.ConnectionEstablished");
            recording.enable("dev.rdmafutures.ConnectionEnded");
            recording.enable("dev.rdmafutures.ConnectFailed");
            recording.enable("dev.rdmafutures.SlowOperation");
            recording.start();
            try (RdmaRuntime server = RdmaRuntime.builder().build();
                 RdmaRuntime client = RdmaRuntime.builder().slowOperationThreshold(Duration.ofNanos(1)).build()) {
                RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0));
                CompletableFuture<RdmaConnection> accepted = listener.next().thenCompose(ConnectionRequest::accept);
                RdmaConnection connection = client.connector().connect(listener.localAddress()).start()
                        .get(WAIT, TimeUnit.SECONDS);
                accepted.get(WAIT, TimeUnit.SECONDS);
                MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
                MemoryRegion remote = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
                connection.read(local.slice(0, 64), remote.remote(), 0, OperationFlags.NONE).get(WAIT,
                        TimeUnit.SECONDS);
                connection.disconnect().get(WAIT, TimeUnit.SECONDS);
                InetSocketAddress nobody;
                try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    nobody = new InetSocketAddress(closed.getInetAddress(), closed.getLocalPort());
                } // closed at once: a connect to it is refused (RdmaListener.close hands its close to the poller)
                CompletableFuture<RdmaConnection> refused = client.connector().connect(nobody).start();
                assertThat(refused).failsWithin(Duration.ofSeconds(WAIT));
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertThat(named(events, "dev.rdmafutures.ConnectionEstablished"))
                .extracting(e -> e.getBoolean("active")).containsExactlyInAnyOrder(true, false);
        assertThat(named(events, "dev.rdmafutures.ConnectionEnded"))
                .extracting(e -> e.getString("reason")).contains("LOCAL_DISCONNECT");
        assertThat(named(events, "dev.rdmafutures.ConnectFailed"))
                .extracting(e -> e.getString("status")).containsExactly("CONNECTION_REFUSED");
        List<RecordedEvent> slow = named(events, "dev.rdmafutures.SlowOperation");
        assertThat(slow).extracting(e -> e.getString("kind")).containsExactly("READ");
        assertThat(slow.get(0).getLong("bytes")).isEqualTo(64);
        assertThat(slow.get(0).getString("status")).isEqualTo("SUCCESS");
        assertThat(slow.get(0).getLong("took")).isPositive();
        assertThat(Files.size(file)).isPositive();
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
