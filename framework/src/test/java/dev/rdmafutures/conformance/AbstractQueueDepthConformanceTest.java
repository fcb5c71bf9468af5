package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.AdapterInfo;
import dev.rdmafutures.Batch;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.QueueDepths;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Queue depths and back-pressure (NDK's initiator and receive queue depths): what is granted, what is refused
 * beyond it with INSUFFICIENT_RESOURCES at once, and that slots come back when completions are reported.
 */
public abstract class AbstractQueueDepthConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
    /** For posts expected to be refused, whose callback is never called. */
    private static final CompletionCallback IGNORED = new CompletionCallback() {
        @Override
        public void completed(long context, int bytes) {
        }

        @Override
        public void failed(long context, RdmaException error) {
        }
    };

    private MemoryRegion register(dev.rdmafutures.RdmaRuntime runtime, int size) {
        return closeLater(runtime.register(ByteBuffer.allocateDirect(size), ALL));
    }

    /** A client connection asking for {@code client} depths and a server side accepting with {@code server}. */
    private Pair connect(QueueDepths clientDepths, QueueDepths serverDepths) {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withQueueDepths(clientDepths.initiator(), clientDepths.receive()).start();
        ConnectionRequest request = await(listener.next());
        RdmaConnection s = closeLater(await(request.withQueueDepths(serverDepths.initiator(), serverDepths.receive())
                .accept()));
        return new Pair(closeLater(await(c)), s);
    }

    @Test
    void defaultDepthsAreGrantedCappedToTheAdapterAndAllSlotsAreFree() {
        Pair pair = connectPair(listen());
        AdapterInfo adapter = client.adapterInfo();
        assertThat(adapter.maxInitiatorQueueDepth()).isPositive();
        assertThat(adapter.maxReceiveQueueDepth()).isPositive();
        QueueDepths expected = QueueDepths.DEFAULT.cappedTo(adapter);
        assertThat(pair.client().queueDepths()).isEqualTo(expected);
        assertThat(pair.client().availableInitiatorSlots()).isEqualTo(expected.initiator());
        assertThat(pair.client().availableReceiveSlots()).isEqualTo(expected.receive());
        assertThat(pair.server().queueDepths()).isEqualTo(QueueDepths.DEFAULT.cappedTo(server.adapterInfo()));
    }

    @Test
    void depthsBeyondTheAdapterAreCappedAndSmallOnesGrantedAsAsked() {
        Pair pair = connect(new QueueDepths(Integer.MAX_VALUE, Integer.MAX_VALUE), new QueueDepths(3, 5));
        AdapterInfo adapter = client.adapterInfo();
        int initiatorSge = Math.min(QueueDepths.DEFAULT_MAX_SGE, adapter.maxInitiatorSge());
        int receiveSge = Math.min(QueueDepths.DEFAULT_MAX_SGE, adapter.maxReceiveSge());
        assertThat(pair.client().queueDepths()).isEqualTo(new QueueDepths(adapter.maxInitiatorQueueDepth(),
                adapter.maxReceiveQueueDepth(), initiatorSge, receiveSge));
        assertThat(pair.server().queueDepths()).isEqualTo(new QueueDepths(3, 5, initiatorSge, receiveSge));
        assertThat(pair.server().availableInitiatorSlots()).isEqualTo(3);
        assertThat(pair.server().availableReceiveSlots()).isEqualTo(5);
        MemoryRegion local = register(client, 64);
        MemoryRegion remote = register(server, 64);
        assertThat(await(pair.client().read(local.slice(0, 64), remote.remote(), 0,
                OperationFlags.NONE)).bytes()).isEqualTo(64);
    }

    @Test
    void invalidDepthsAreRejectedAtOnceOnBothSides() {
        RdmaListener listener = listen();
        var connect = client.connector().connect(listener.localAddress());
        assertStatus(Status.INVALID_PARAMETER, () -> connect.withQueueDepths(0, 1));
        assertStatus(Status.INVALID_PARAMETER, () -> connect.withQueueDepths(1, 0));
        assertStatus(Status.INVALID_PARAMETER, () -> connect.withQueueDepths(-5, 8));
        CompletableFuture<RdmaConnection> c = connect.start();
        ConnectionRequest request = await(listener.next());
        assertStatus(Status.INVALID_PARAMETER, () -> request.withQueueDepths(0, 0));
        assertStatus(Status.INVALID_PARAMETER, () -> request.withQueueDepths(Integer.MIN_VALUE, 1));
        RdmaConnection s = closeLater(await(request.accept()));
        assertThat(closeLater(await(c)).queueDepths()).isEqualTo(QueueDepths.DEFAULT.cappedTo(client.adapterInfo()));
        assertThat(s.queueDepths()).isEqualTo(QueueDepths.DEFAULT.cappedTo(server.adapterInfo()));
    }

    @Test
    void theInitiatorQueueRefusesBeyondItsDepthAtOnceAndRecoversWhenCompletionsFreeSlots() {
        Pair pair = connect(new QueueDepths(4, 4), QueueDepths.DEFAULT);
        RdmaConnection c = pair.client();
        MemoryRegion local = register(client, 64);
        MemoryRegion remote = register(server, 64);
        remote.buffer().put(0, (byte) 42);
        // A batch's operations hold their slots from when they are added, so this fills the queue deterministically.
        Batch batch = c.batch();
        for (int i = 0; i < 4; i++) {
            batch.read(local.slice(i * 8, 8), remote.remote(), i * 8, OperationFlags.NONE);
        }
        assertThat(c.availableInitiatorSlots()).isZero();
        batch.write(local.slice(0, 8), remote.remote(), 32, OperationFlags.NONE); // the fifth: beyond the depth
        assertThat(c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE, IGNORED, 0))
                .isEqualTo(Status.INSUFFICIENT_RESOURCES);
        assertThat(awaitFailure(c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.INSUFFICIENT_RESOURCES).getMessage()).contains("4");
        awaitFailure(c.send(local.slice(0, 8), OperationFlags.NONE), Status.INSUFFICIENT_RESOURCES);
        awaitFailure(c.write(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.INSUFFICIENT_RESOURCES);
        assertThat(c.availableReceiveSlots()).as("receives have their own queue").isEqualTo(4);

        List<CompletableFuture<Completion>> results = batch.post();
        for (int i = 0; i < 4; i++) {
            assertThat(await(results.get(i)).bytes()).isEqualTo(8);
        }
        awaitFailure(results.get(4), Status.INSUFFICIENT_RESOURCES);
        assertThat(local.buffer().get(0)).isEqualTo((byte) 42);
        assertThat(c.availableInitiatorSlots()).isEqualTo(4);
        assertThat(await(c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE)).bytes()).isEqualTo(8);
        assertThat(c.isConnected()).isTrue();
    }

    @Test
    void theReceiveQueueRefusesBeyondItsDepthAndAReportedReceiveFreesItsSlot() {
        Pair pair = connect(QueueDepths.DEFAULT, new QueueDepths(4, 2));
        RdmaConnection s = pair.server();
        MemoryRegion serverMem = register(server, 64);
        MemoryRegion clientMem = register(client, 64);
        CompletableFuture<Completion> first = s.receive(serverMem.slice(0, 16));
        CompletableFuture<Completion> second = s.receive(serverMem.slice(16, 16));
        assertThat(s.availableReceiveSlots()).isZero();
        awaitFailure(s.receive(serverMem.slice(32, 16)), Status.INSUFFICIENT_RESOURCES);
        assertThat(s.receive(serverMem.slice(32, 16), IGNORED, 0)).isEqualTo(Status.INSUFFICIENT_RESOURCES);
        // Once the receives are posted (a later read of the server completes after them), a send may find them.
        await(s.read(serverMem.slice(48, 0), clientMem.remote(), 0, OperationFlags.NONE));
        assertThat(s.availableInitiatorSlots()).isEqualTo(4);

        await(pair.client().send(clientMem.slice(0, 10), OperationFlags.NONE));
        assertThat(await(first).bytes()).isEqualTo(10);
        assertThat(s.availableReceiveSlots()).isEqualTo(1);
        CompletableFuture<Completion> third = s.receive(serverMem.slice(32, 16));
        assertThat(s.availableReceiveSlots()).isZero();
        await(s.read(serverMem.slice(48, 0), clientMem.remote(), 0, OperationFlags.NONE));
        await(pair.client().send(clientMem.slice(0, 11), OperationFlags.NONE));
        await(pair.client().send(clientMem.slice(0, 12), OperationFlags.NONE));
        assertThat(await(second).bytes()).isEqualTo(11);
        assertThat(await(third).bytes()).isEqualTo(12);
        assertThat(s.availableReceiveSlots()).isEqualTo(2);
    }

    @Test
    void aFastPosterIsRefusedBeyondTheDepthAndEveryAcceptedOperationCompletes() {
        int depth = 16;
        int attempts = 50_000;
        Pair pair = connect(new QueueDepths(depth, 1), QueueDepths.DEFAULT);
        RdmaConnection c = pair.client();
        MemoryRegion local = register(client, 8);
        MemoryRegion remote = register(server, 8);
        AtomicInteger completed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CompletionCallback count = new CompletionCallback() {
            @Override
            public void completed(long context, int bytes) {
                completed.incrementAndGet();
            }

            @Override
            public void failed(long context, RdmaException error) {
                failed.incrementAndGet();
            }
        };
        int accepted = 0;
        int refused = 0;
        int lowestAvailable = depth;
        for (int i = 0; i < attempts; i++) {
            Status status = c.read(local, remote.remote(), 0, OperationFlags.NONE, count, i);
            if (status == Status.SUCCESS) {
                accepted++;
            } else {
                assertThat(status).isEqualTo(Status.INSUFFICIENT_RESOURCES);
                refused++;
            }
            lowestAvailable = Math.min(lowestAvailable, c.availableInitiatorSlots());
        }
        assertThat(accepted + refused).isEqualTo(attempts);
        assertThat(refused).as("posts beyond the depth are refused, not queued").isPositive();
        assertThat(lowestAvailable).isBetween(0, depth);
        int posted = accepted;
        awaitCondition(() -> completed.get() + failed.get() == posted);
        assertThat(failed.get()).isZero();
        assertThat(c.availableInitiatorSlots()).isEqualTo(depth);
        assertThat(await(c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE)).bytes()).isEqualTo(8);
    }

    private static void awaitCondition(BooleanSupplier condition) {
        Waits.until("every accepted post reported", WAIT, condition);
    }
}
