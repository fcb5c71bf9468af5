package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectionMetrics;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.OperationMetrics;
import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.RuntimeMetrics;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The counters every provider keeps the same way: operations per connection and per runtime (posted, completed,
 * failed by status, bytes by kind), queue occupancy, connection set-ups by outcome, the pollers' duty cycles.
 */
public abstract class AbstractMetricsConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    private MemoryRegion register(RdmaRuntime runtime, int size) {
        return closeLater(runtime.register(ByteBuffer.allocateDirect(size), ALL));
    }

    /** Counters are updated before a future completes, but a snapshot may be taken on another thread: wait. */
    private static void eventually(BooleanSupplier condition, String what) {
        Waits.until(what, WAIT, condition);
    }

    @Test
    void operationsAreCountedOnTheirConnectionAndInTheRuntime() throws Exception {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 4096);
        MemoryRegion remote = register(server, 4096);
        OperationMetrics runtimeBefore = client.metrics().operations();
        for (int i = 0; i < 3; i++) {
            await(pair.client().read(local.slice(0, 100), remote.remote(), 0, OperationFlags.NONE));
        }
        for (int i = 0; i < 2; i++) {
            await(pair.client().write(local.slice(0, 200), remote.remote(), 1000, OperationFlags.NONE));
        }
        CompletableFuture<Completion> received = pair.server().receive(remote.slice(2000, 64));
        awaitPosted(pair.server(), remote, local); // one more operation of the receiver: a READ of no bytes
        await(pair.client().send(local.slice(0, 50), OperationFlags.NONE));
        await(received);

        ConnectionMetrics sender = pair.client().metrics();
        assertThat(sender.operations().posted()).isEqualTo(6);
        assertThat(sender.operations().completed()).isEqualTo(6);
        assertThat(sender.operations().failed()).isZero();
        assertThat(sender.operations().bytesRead()).isEqualTo(300);
        assertThat(sender.operations().bytesWritten()).isEqualTo(400);
        assertThat(sender.operations().bytesSent()).isEqualTo(50);
        assertThat(sender.operations().bytesReceived()).isZero();
        assertThat(sender.initiatorSlotsUsed()).isZero();
        ConnectionMetrics receiver = pair.server().metrics();
        assertThat(receiver.operations().posted()).isEqualTo(2);
        assertThat(receiver.operations().completed()).isEqualTo(2);
        assertThat(receiver.operations().bytesReceived()).isEqualTo(50);
        assertThat(receiver.receiveSlotsUsed()).isZero();

        OperationMetrics runtimeAfter = client.metrics().operations();
        assertThat(runtimeAfter.posted() - runtimeBefore.posted()).isEqualTo(6);
        assertThat(runtimeAfter.completed() - runtimeBefore.completed()).isEqualTo(6);
        assertThat(runtimeAfter.bytesRead() - runtimeBefore.bytesRead()).isEqualTo(300);
        assertThat(runtimeAfter.bytesWritten() - runtimeBefore.bytesWritten()).isEqualTo(400);
        assertThat(runtimeAfter.bytesSent() - runtimeBefore.bytesSent()).isEqualTo(50);
        assertThat(server.metrics().operations().bytesReceived()).isEqualTo(50);
    }

    @Test
    void outstandingOperationsTakeSlotsAndFailuresAreCountedByStatus() throws Exception {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 4096);
        MemoryRegion inbox = register(server, 4096);
        CompletableFuture<Completion> pending = pair.server().receive(inbox.slice(0, 64));
        assertThat(pair.server().metrics().receiveSlotsUsed()).isEqualTo(1);
        eventually(() -> pair.server().metrics().operations().inFlight() == 1, "the receive counted as posted");

        // A READ the peer refuses: beyond the region its token names.
        RemoteBuffer beyond = new RemoteBuffer(inbox.remote().address(), 1 << 20, inbox.remote().token());
        RdmaException refused = awaitAnyFailure(pair.client().read(local.slice(0, 16), beyond, 8192,
                OperationFlags.NONE));
        ConnectionMetrics reader = pair.client().metrics();
        assertThat(reader.operations().failed(refused.status())).isEqualTo(1);
        assertThat(reader.operations().completed()).isZero();
        assertThat(client.metrics().operations().failures()).containsEntry(refused.status(), 1L);
        // The refusal ends the connection: the receive still outstanding fails too, and is counted as failed.
        awaitAnyFailure(pending);
        OperationMetrics receiver = pair.server().metrics().operations();
        assertThat(receiver.failed()).isEqualTo(1);
        assertThat(receiver.inFlight()).isZero();
        assertThat(pair.server().metrics().receiveSlotsUsed()).isZero();
    }

    @Test
    void connectionSetUpsAreCountedByOutcome() throws Exception {
        RdmaListener listener = listen();
        Pair pair = connectPair(listener);
        CompletableFuture<RdmaConnection> refused = client.connector().connect(listener.localAddress()).start();
        ConnectionRequest request = await(listener.next());
        await(request.reject(new byte[0]));
        awaitFailure(refused, Status.CONNECTION_REFUSED);

        RuntimeMetrics active = client.metrics();
        assertThat(active.connects()).isEqualTo(1);
        assertThat(active.connectFailures()).containsEntry(Status.CONNECTION_REFUSED, 1L);
        assertThat(active.open()).isEqualTo(1);
        RuntimeMetrics passive = server.metrics();
        assertThat(passive.accepts()).isEqualTo(1);
        assertThat(passive.rejects()).isEqualTo(1);
        assertThat(passive.open()).isEqualTo(1);

        await(pair.client().disconnect());
        await(pair.server().disconnected());
        eventually(() -> client.metrics().open() == 0 && server.metrics().open() == 0, "both ends counted as ended");
    }

    @Test
    void errorsThePollersContainAreCountedByCause() throws Exception {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64);
        MemoryRegion remote = register(server, 64);
        CompletableFuture<Void> called = new CompletableFuture<>();
        pair.client().read(local.slice(0, 64), remote.remote(), 0, OperationFlags.NONE, new CompletionCallback() {
            @Override
            public void completed(long context, int bytes) {
                called.complete(null);
                throw new IllegalStateException("a callback that throws");
            }

            @Override
            public void failed(long context, RdmaException error) {
                called.completeExceptionally(error);
            }
        }, 7);
        await(called);
        eventually(() -> client.metrics().pollerErrors() == 1, "the thrown error counted");
        assertThat(client.metrics().pollerErrorsByCause())
                .containsExactly(Map.entry("completion callback: java.lang.IllegalStateException", 1L));
        // The poller went on: the connection still serves.
        assertThat(await(pair.client().read(local.slice(0, 64), remote.remote(), 0,
                OperationFlags.NONE)).bytes()).isEqualTo(64);
    }

    @Test
    void pollersReportTheirDutyCycle() throws Exception {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64);
        MemoryRegion remote = register(server, 64);
        await(pair.client().read(local.slice(0, 64), remote.remote(), 0, OperationFlags.NONE));
        eventually(() -> client.metrics().pollers().get(0).workCycles() > 0, "a cycle that found work");
        for (PollerMetrics poller : client.metrics().pollers()) {
            assertThat(poller.name()).startsWith("client-poller");
            assertThat(poller.workCycles()).isPositive().isLessThanOrEqualTo(poller.dutyCycles());
            assertThat(poller.busy()).isLessThanOrEqualTo(poller.uptime());
            assertThat(poller.idleRatio()).isBetween(0.0, 1.0);
        }
        assertThat(client.metrics().pollerErrors()).isEqualTo(client.pollerErrorCount());
    }
}
