package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The receives a stream posts before connecting (iWARP's path, forced here on {@code soft}): what the queue takes
 * before a stream owns the ring must reach the stream, in order, once it has set itself up.
 */
class ReceiveRingTest {
    private static final long DEADLINE_NANOS = 10_000_000_000L;

    @Test
    void messagesTakenBeforeTheStreamOwnedTheRingReachItInOrderOnceItHasSetUp() {
        try (RdmaRuntime server = RdmaRuntime.builder().threadNamePrefix("ring-server").build();
             RdmaRuntime client = RdmaRuntime.builder().pollerThreads(0).build()) {
            ReceiveRing ring = ReceiveRing.beforeConnection(client, new StreamSettings(64, 4, 4));
            assertThat(ring.queue().postedReceives()).isEqualTo(4);
            RdmaListener listener = server.listen(new InetSocketAddress("127.0.0.1", 0));
            CompletableFuture<RdmaConnection> accepted = listener.next().thenCompose(ConnectionRequest::accept);
            CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                    .withSharedReceiveQueue(ring.queue()).start();
            pollUntil(client, () -> connecting.isDone() && accepted.isDone());
            RdmaConnection c = connecting.join();
            RdmaConnection s = accepted.join();

            MemoryRegion outbox = server.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
            outbox.buffer().put(0, "firstsecond-message".getBytes(StandardCharsets.US_ASCII));
            s.send(outbox.slice(0, 5), OperationFlags.NONE).join();
            s.send(outbox.slice(5, 14), OperationFlags.NONE).join();
            pollUntil(client, () -> ring.queue().postedReceives() == 2);

            Recorder stream = new Recorder();
            ArrayDeque<Runnable> loop = new ArrayDeque<>();
            ring.attach(c, stream, loop::add);
            // A message that comes before the report's task ran queues behind the early ones.
            s.send(outbox.slice(0, 3), OperationFlags.NONE).join();
            pollUntil(client, () -> ring.queue().postedReceives() == 1);
            assertThat(stream.reports).as("reported in a task, once the stream has set up").isEmpty();
            loop.forEach(Runnable::run);
            assertThat(stream.reports).containsExactly("0:5", "1:14", "2:3");
            assertThat(text(ring, 0, 5)).isEqualTo("first");
            assertThat(text(ring, 1, 14)).isEqualTo("second-message");

            ring.post(0);
            assertThat(ring.queue().postedReceives()).isEqualTo(2);
            s.send(outbox.slice(0, 11), OperationFlags.NONE).join();
            pollUntil(client, () -> stream.reports.size() == 4);
            assertThat(stream.reports.get(3)).as("after the report: straight to the stream").isEqualTo("3:11");

            s.close();
            pollUntil(client, () -> c.disconnected().isDone());
            ring.release();
            MemoryRegion other = client.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE);
            assertThat(ring.queue().receive(other.slice(0, 8), ring, 9)).as("the queue after the release")
                    .isEqualTo(Status.INVALID_DEVICE_STATE);
        }
    }

    private static String text(ReceiveRing ring, int slot, int length) {
        ByteBuf copy = Unpooled.buffer(length);
        ring.copyTo(copy, slot, 0, length);
        return copy.toString(StandardCharsets.US_ASCII);
    }

    private static void pollUntil(RdmaRuntime runtime, BooleanSupplier done) {
        long start = System.nanoTime();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime() - start).as("nanoseconds waited").isLessThan(DEADLINE_NANOS);
            runtime.poll();
        }
    }

    /** A stream's view of its receives: "slot:bytes" per completion, in order. */
    private static final class Recorder implements CompletionCallback {
        final List<String> reports = new ArrayList<>();

        @Override
        public void completed(long context, int bytes) {
            reports.add(context + ":" + bytes);
        }

        @Override
        public void failed(long context, RdmaException error) {
            reports.add(context + ":" + error.status());
        }
    }
}
