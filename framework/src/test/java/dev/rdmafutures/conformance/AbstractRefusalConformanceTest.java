package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The refusal table of {@link RdmaConnection}'s Javadoc, row by row: a refused post's future has failed before the
 * call returns, its callback form returns the status and never calls back, nothing is taken (slots stay free), and
 * the connection stays up for the next post.
 */
public abstract class AbstractRefusalConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
    private final AtomicInteger callbacks = new AtomicInteger();
    private final CompletionCallback counting = new CompletionCallback() {
        @Override
        public void completed(long context, int bytes) {
            callbacks.incrementAndGet();
        }

        @Override
        public void failed(long context, RdmaException error) {
            callbacks.incrementAndGet();
        }
    };

    private MemoryRegion register(RdmaRuntime runtime, int size, Access... access) {
        return closeLater(runtime.register(ByteBuffer.allocateDirect(size), access));
    }

    /** The future form fails at once with {@code expected}, the callback form returns it; nothing is taken. */
    private void refused(RdmaConnection connection, Status expected, Supplier<CompletableFuture<Completion>> future,
                         Supplier<Status> callbackForm) {
        int initiator = connection.availableInitiatorSlots();
        int receive = connection.availableReceiveSlots();
        CompletableFuture<Completion> f = future.get();
        assertThat(f).as("failed before the call returned").isCompletedExceptionally();
        awaitFailure(f, expected);
        assertThat(callbackForm.get()).as("the callback form's status").isEqualTo(expected);
        assertThat(connection.availableInitiatorSlots()).as("initiator slots").isEqualTo(initiator);
        assertThat(connection.availableReceiveSlots()).as("receive slots").isEqualTo(receive);
    }

    @Test
    void eachArgumentRowFailsTheFutureAtOnceAndIsReturnedByTheCallbackFormTakingNothing() {
        Pair pair = connectPair(listen());
        RdmaConnection c = pair.client();
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion readOnly = register(client, 64, Access.REMOTE_READ);
        RemoteBuffer remote = register(server, 64, ALL).remote();
        refused(c, Status.REMOTE_RESOURCES, () -> c.read(local.slice(0, 64), remote, 32, OperationFlags.NONE),
                () -> c.read(local.slice(0, 64), remote, 32, OperationFlags.NONE, counting, 1));
        refused(c, Status.REMOTE_RESOURCES, () -> c.write(local.slice(0, 8), remote, -1, OperationFlags.NONE),
                () -> c.write(local.slice(0, 8), remote, -1, OperationFlags.NONE, counting, 1));
        MemoryRegion foreign = register(server, 64, ALL);
        refused(c, Status.ACCESS_VIOLATION, () -> c.write(foreign.slice(0, 8), remote, 0, OperationFlags.NONE),
                () -> c.write(foreign.slice(0, 8), remote, 0, OperationFlags.NONE, counting, 1));
        // A span's own rows are refused when the slice or list is made, before any post.
        assertStatus(Status.INVALID_PARAMETER, () -> local.slice(-1, 8));
        assertStatus(Status.INVALID_PARAMETER, () -> local.slice(0, -8));
        assertStatus(Status.ACCESS_VIOLATION, () -> local.slice(60, 8));
        assertStatus(Status.INVALID_PARAMETER, () -> new ScatterGatherList(2).add(local, -1, 8));
        assertStatus(Status.ACCESS_VIOLATION, () -> new ScatterGatherList(2).add(local, 60, 8));
        MemoryRegion gone = register(client, 64, ALL);
        gone.deregister();
        refused(c, Status.ACCESS_VIOLATION, () -> c.send(gone.slice(0, 8), OperationFlags.NONE),
                () -> c.send(gone.slice(0, 8), OperationFlags.NONE, counting, 1));
        refused(c, Status.ACCESS_VIOLATION, () -> c.read(readOnly.slice(0, 8), remote, 0, OperationFlags.NONE),
                () -> c.read(readOnly.slice(0, 8), remote, 0, OperationFlags.NONE, counting, 1));
        refused(c, Status.ACCESS_VIOLATION, () -> c.receive(readOnly.slice(0, 8)),
                () -> c.receive(readOnly.slice(0, 8), counting, 1));
        int sge = c.queueDepths().initiatorSge();
        ScatterGatherList tooMany = new ScatterGatherList(sge + 1);
        for (int i = 0; i <= sge; i++) {
            tooMany.add(local, i, 1);
        }
        refused(c, Status.INVALID_PARAMETER, () -> c.write(tooMany, remote, 0, OperationFlags.NONE),
                () -> c.write(tooMany, remote, 0, OperationFlags.NONE, counting, 1));
        if (client.adapterInfo().isReadFenceOnReadSupported()) {
            assertThat(await(c.read(local.slice(0, 8), remote, 0, OperationFlags.READ_FENCE)).bytes()).isEqualTo(8);
        } else {
            refused(c, Status.NOT_SUPPORTED, () -> c.read(local.slice(0, 8), remote, 0, OperationFlags.READ_FENCE),
                    () -> c.read(local.slice(0, 8), remote, 0, OperationFlags.READ_FENCE, counting, 1));
        }
        assertThat(callbacks).as("callbacks of refused posts").hasValue(0);
        assertThat(await(c.read(local.slice(0, 64), remote, 0, OperationFlags.NONE)).bytes()).isEqualTo(64);
        assertThat(c.isConnected()).isTrue();
    }

    @Test
    void aFullQueueRefusesAtOnceByDefault() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                .withQueueDepths(4, 1).start();
        closeLater(await(await(listener.next()).accept()));
        RdmaConnection c = closeLater(await(connecting));
        MemoryRegion local = register(client, 64, ALL);
        CompletableFuture<Completion> holder = c.receive(local.slice(0, 8)); // the peer never sends: it keeps the slot
        refused(c, Status.INSUFFICIENT_RESOURCES, () -> c.receive(local.slice(8, 8)),
                () -> c.receive(local.slice(8, 8), counting, 1));
        assertThat(holder).isNotDone();
        assertThat(callbacks).hasValue(0);
    }

    @Test
    void aConnectionThatEndedAndARuntimeThatClosedRefuseWithConnectionInvalid() {
        Pair pair = connectPair(listen());
        RdmaConnection c = pair.client();
        MemoryRegion local = register(client, 64, ALL);
        RemoteBuffer remote = register(server, 64, ALL).remote();
        await(c.disconnect());
        refused(c, Status.CONNECTION_INVALID, () -> c.read(local.slice(0, 8), remote, 0, OperationFlags.NONE),
                () -> c.read(local.slice(0, 8), remote, 0, OperationFlags.NONE, counting, 1));

        RdmaRuntime closing = fixture().runtimeBuilder().threadNamePrefix("refusal-closing").build();
        MemoryRegion closingLocal = closing.register(ByteBuffer.allocateDirect(64), ALL);
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> connecting = closing.connector().connect(listener.localAddress()).start();
        closeLater(await(await(listener.next()).accept()));
        RdmaConnection doomed = await(connecting);
        closing.close();
        refused(doomed, Status.CONNECTION_INVALID,
                () -> doomed.read(closingLocal.slice(0, 8), remote, 0, OperationFlags.NONE),
                () -> doomed.read(closingLocal.slice(0, 8), remote, 0, OperationFlags.NONE, counting, 1));
        assertThat(callbacks).hasValue(0);
    }
}
