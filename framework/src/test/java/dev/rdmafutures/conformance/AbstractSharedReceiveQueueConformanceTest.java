package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.SharedReceive;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues (NDK's {@code NdkCreateSrq}): one queue serving many connections, each Send reported with
 * the connection it came on; depth and segment limits refused at once; the one-shot limit notification; a queue
 * outliving the connections that used it.
 */
public abstract class AbstractSharedReceiveQueueConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
    private static final int SLOT = 64;

    @BeforeEach
    void requireSharedReceiveQueues() {
        assumeTrue(server.adapterInfo().maxSharedReceiveQueueDepth() > 0,
                "the adapter has no shared receive queues (AdapterInfo.maxSharedReceiveQueueDepth is 0)");
    }

    private MemoryRegion register(RdmaRuntime runtime, int size) {
        return closeLater(runtime.register(ByteBuffer.allocateDirect(size), ALL));
    }

    /** {@code count} client connections whose server sides take their receives from {@code queue}. */
    private List<Pair> connect(SharedReceiveQueue queue, int count) {
        RdmaListener listener = listen();
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
            ConnectionRequest request = await(listener.next());
            RdmaConnection s = closeLater(await(request.withSharedReceiveQueue(queue).accept()));
            pairs.add(new Pair(closeLater(await(c)), s));
        }
        return pairs;
    }

    /** Sends {@code message}'s bytes from a fresh region. */
    private void send(RdmaConnection connection, byte[] message) {
        MemoryRegion source = register(client, Math.max(1, message.length));
        source.buffer().put(0, message);
        await(connection.send(source.slice(0, message.length), OperationFlags.NONE));
    }

    private static byte[] message(int connection, int sequence) {
        return ByteBuffer.allocate(12).putInt(0xC0FFEE).putInt(connection).putInt(sequence).array();
    }

    @Test
    void oneQueueServesEightConnectionsAndNamesTheConnectionOfEachSend() {
        int connections = 8;
        int perConnection = 4;
        SharedReceiveQueue queue = closeLater(server.sharedReceiveQueue(64, 2));
        MemoryRegion headers = register(server, 32 * SLOT);
        MemoryRegion bodies = register(server, 32 * SLOT);
        List<CompletableFuture<SharedReceive>> receives = new ArrayList<>();
        ScatterGatherList list = new ScatterGatherList(2);
        for (int i = 0; i < connections * perConnection; i++) {
            // Two segments: the first 4 bytes of a message land in headers, the rest in bodies.
            receives.add(queue.receive(list.clear().add(headers, i * SLOT, 4).add(bodies, i * SLOT, SLOT)));
        }
        assertThat(queue.postedReceives()).isEqualTo(connections * perConnection);
        List<Pair> pairs = connect(queue, connections);
        for (int seq = 0; seq < perConnection; seq++) {
            for (int c = 0; c < connections; c++) {
                send(pairs.get(c).client(), message(c, seq));
            }
        }
        Map<RdmaConnection, Integer> clientOf = new IdentityHashMap<>();
        Map<Integer, Integer> lastSequence = new HashMap<>();
        for (int i = 0; i < receives.size(); i++) {
            SharedReceive r = await(receives.get(i));
            assertThat(r.bytes()).isEqualTo(12);
            assertThat(headers.buffer().getInt(i * SLOT)).isEqualTo(0xC0FFEE);
            int from = bodies.buffer().getInt(i * SLOT);
            int sequence = bodies.buffer().getInt(i * SLOT + 4);
            assertThat(r.connection()).isIn(pairs.stream().map(Pair::server).toArray());
            assertThat(clientOf.computeIfAbsent(r.connection(), k -> from)).as("sender of receive %d", i)
                    .isEqualTo(from);
            assertThat(sequence).as("order of connection %d's Sends", from)
                    .isEqualTo(lastSequence.merge(from, 0, (last, zero) -> last + 1));
        }
        assertThat(clientOf).hasSize(connections);
        assertThat(pairs.get(0).server().availableReceiveSlots()).isEqualTo(
                pairs.get(0).server().queueDepths().receive());
        assertThat(queue.postedReceives()).isZero();
        assertThat(queue.availableSlots()).isEqualTo(64);
    }

    @Test
    void theCallbackFormReportsTheConnectionAndTheSize() {
        SharedReceiveQueue queue = closeLater(server.sharedReceiveQueue(4, 1));
        MemoryRegion buffer = register(server, SLOT);
        CompletableFuture<String> outcome = new CompletableFuture<>();
        queue.receive(buffer.slice(0, SLOT), new SharedReceiveCallback() {
            @Override
            public void received(long context, RdmaConnection connection, int bytes) {
                outcome.complete(context + ":" + bytes + ":" + (connection != null));
            }

            @Override
            public void failed(long context, RdmaException error) {
                outcome.completeExceptionally(error);
            }
        }, 7L);
        Pair pair = connect(queue, 1).get(0);
        send(pair.client(), message(0, 0));
        assertThat(await(outcome)).isEqualTo("7:12:true");
    }

    @Test
    void aConnectionWithASharedQueuePostsNoReceivesOfItsOwn() {
        SharedReceiveQueue queue = closeLater(server.sharedReceiveQueue(4, 1));
        Pair pair = connect(queue, 1).get(0);
        MemoryRegion buffer = register(server, SLOT);
        awaitFailure(pair.server().receive(buffer.slice(0, SLOT)), Status.INVALID_DEVICE_STATE);
    }

    @Test
    void depthAndSegmentLimitsAreRefusedAtOnceAndSlotsComeBack() {
        int maxDepth = server.adapterInfo().maxSharedReceiveQueueDepth();
        int maxSge = server.adapterInfo().maxReceiveSge();
        assertStatus(Status.INVALID_PARAMETER, () -> server.sharedReceiveQueue(0, 1));
        assertStatus(Status.INVALID_PARAMETER, () -> server.sharedReceiveQueue(maxDepth + 1, 1));
        assertStatus(Status.INVALID_PARAMETER, () -> server.sharedReceiveQueue(4, 0));
        assertStatus(Status.INVALID_PARAMETER, () -> server.sharedReceiveQueue(4, maxSge + 1));
        SharedReceiveQueue queue = closeLater(server.sharedReceiveQueue(4, 1));
        MemoryRegion buffer = register(server, 8 * SLOT);
        List<CompletableFuture<SharedReceive>> posted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            posted.add(queue.receive(buffer.slice(i * SLOT, SLOT)));
        }
        assertThat(queue.availableSlots()).isZero();
        awaitFailure(queue.receive(buffer.slice(4 * SLOT, SLOT)), Status.INSUFFICIENT_RESOURCES);
        awaitFailure(queue.receive(new ScatterGatherList(2).add(buffer, 0, 8).add(buffer, 8, 8)),
                Status.INVALID_PARAMETER);
        MemoryRegion readOnly = closeLater(server.register(ByteBuffer.allocateDirect(SLOT), Access.REMOTE_READ));
        awaitFailure(queue.receive(readOnly.slice(0, SLOT)), Status.ACCESS_VIOLATION);
        assertThat(queue.receive(buffer.slice(4 * SLOT, SLOT), ignoring(), 0))
                .isEqualTo(Status.INSUFFICIENT_RESOURCES);
        assertThat(queue.postedReceives()).as("refused posts are not counted").isEqualTo(4);
        Pair pair = connect(queue, 1).get(0);
        send(pair.client(), message(0, 0));
        assertThat(await(posted.get(0)).bytes()).isEqualTo(12);
        assertThat(queue.availableSlots()).isEqualTo(1);
        CompletableFuture<SharedReceive> again = queue.receive(buffer.slice(4 * SLOT, SLOT));
        for (int i = 1; i <= 4; i++) {
            send(pair.client(), message(0, i));
        }
        assertThat(await(again).bytes()).isEqualTo(12);
        assertThat(bufferInt(buffer, 4 * SLOT + 8)).isEqualTo(4);
    }

    /** A callback for a post that must be refused: it never runs. */
    private static SharedReceiveCallback ignoring() {
        return new SharedReceiveCallback() {
            @Override
            public void received(long context, RdmaConnection connection, int bytes) {
                throw new AssertionError("a refused receive was filled");
            }

            @Override
            public void failed(long context, RdmaException error) {
                throw new AssertionError("a refused receive reported " + error);
            }
        };
    }

    private static int bufferInt(MemoryRegion region, int offset) {
        return region.buffer().getInt(offset);
    }

    @Test
    void theLimitNotificationFiresOnceWhenFewerThanTheThresholdRemain() {
        SharedReceiveQueue queue = closeLater(server.sharedReceiveQueue(16, 1));
        MemoryRegion buffer = register(server, 16 * SLOT);
        List<CompletableFuture<SharedReceive>> posted = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            posted.add(queue.receive(buffer.slice(i * SLOT, SLOT)));
        }
        assertStatus(Status.INVALID_PARAMETER, () -> queue.notifyBelow(0));
        assertStatus(Status.INVALID_PARAMETER, () -> queue.notifyBelow(17));
        CompletableFuture<Integer> low = queue.notifyBelow(4);
        Pair pair = connect(queue, 1).get(0);
        for (int i = 0; i < 4; i++) {
            send(pair.client(), message(0, i));
            await(posted.get(i));
        }
        assertThat(queue.postedReceives()).isEqualTo(4);
        assertThat(low).as("4 remain: not fewer than 4").isNotDone();
        send(pair.client(), message(0, 4));
        await(posted.get(4));
        assertThat(await(low)).isBetween(0, 3);
        CompletableFuture<Integer> lower = queue.notifyBelow(2);
        send(pair.client(), message(0, 5));
        await(posted.get(5));
        assertThat(lower).as("2 remain: not fewer than 2").isNotDone();
        send(pair.client(), message(0, 6));
        assertThat(await(lower)).isBetween(0, 1);
    }

    @Test
    void theQueueOutlivesItsConnectionsAndClosingItCancelsWhatIsPosted() {
        SharedReceiveQueue queue = server.sharedReceiveQueue(8, 1);
        MemoryRegion buffer = register(server, 8 * SLOT);
        List<CompletableFuture<SharedReceive>> posted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            posted.add(queue.receive(buffer.slice(i * SLOT, SLOT)));
        }
        List<Pair> pairs = connect(queue, 2);
        await(pairs.get(0).client().disconnect());
        await(pairs.get(0).server().disconnected());
        send(pairs.get(1).client(), message(1, 0));
        assertThat(await(posted.get(0)).connection()).isSameAs(pairs.get(1).server());
        assertThat(posted.get(1)).isNotDone();
        assertStatus(Status.INVALID_DEVICE_STATE, queue::close);
        await(pairs.get(1).server().disconnect());
        queue.close();
        awaitFailure(posted.get(1), Status.CANCELED);
        awaitFailure(posted.get(2), Status.CANCELED);
        assertThat(queue.postedReceives()).as("canceled receives are posted no more").isZero();
        awaitFailure(queue.receive(buffer.slice(0, SLOT)), Status.INVALID_DEVICE_STATE);
        RdmaListener listener = listen();
        client.connector().connect(listener.localAddress()).start();
        ConnectionRequest request = await(listener.next());
        assertStatus(Status.INVALID_DEVICE_STATE, () -> request.withSharedReceiveQueue(queue));
    }

    @Test
    void aQueueOfAnotherRuntimeIsRefused() {
        assumeTrue(client.adapterInfo().maxSharedReceiveQueueDepth() > 0, "the client's adapter has none");
        SharedReceiveQueue foreign = closeLater(server.sharedReceiveQueue(4, 1));
        assertStatus(Status.INVALID_PARAMETER, () -> client.connector().connect(listen().localAddress())
                .withSharedReceiveQueue(foreign));
    }
}
