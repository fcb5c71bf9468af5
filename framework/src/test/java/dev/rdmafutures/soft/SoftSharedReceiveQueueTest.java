package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.IdleStrategy;
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
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ManualTicker;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.conformance.Waits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Soft's shared receive queues where the wire decides: a Send keeps the receive it took at its first segment while
 * other connections take the next ones; connections on different pollers held on an empty queue resume when a
 * receive is posted; a connection that ends mid-message, or whose Send waits too long, fails only what it took.
 * The shared queues are closed by their runtime's close, after the connections that use them.
 */
class SoftSharedReceiveQueueTest extends ConformanceSupport {
    private static final int SLOT = 64;

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String ascii(MemoryRegion region, int offset, int length) {
        byte[] bytes = new byte[length];
        region.buffer().get(offset, bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private MemoryRegion receiveBuffer(RdmaRuntime runtime, int size) {
        return closeLater(runtime.register(SoftScatterGatherWireTest.untouched(size), Access.LOCAL_WRITE));
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        Waits.until(what, WAIT, condition);
    }

    /** A raw initiator whose connection the server accepts with {@code queue}; returns the server's side. */
    private RdmaConnection acceptRaw(RdmaListener listener, SharedReceiveQueue queue, List<RawPeer> peers)
            throws Exception {
        RawPeer peer = closeLater(RawPeer.connect(listener.localAddress(), WAIT));
        RdmaConnection accepted = closeLater(await(await(listener.next()).withSharedReceiveQueue(queue).accept()));
        peers.add(peer.readReply());
        return accepted;
    }

    @Test
    void aSendKeepsTheReceiveItTookAtItsFirstSegmentWhileAnotherConnectionTakesTheNext() throws Exception {
        SharedReceiveQueue queue = server.sharedReceiveQueue(4, 2);
        MemoryRegion buffer = receiveBuffer(server, 4 * SLOT);
        ScatterGatherList split = new ScatterGatherList(2).add(buffer, 0, 3).add(buffer, 2 * SLOT, SLOT);
        CompletableFuture<SharedReceive> first = queue.receive(split);
        CompletableFuture<SharedReceive> second = queue.receive(buffer.slice(SLOT, SLOT));
        awaitTrue(() -> queue.postedReceives() == 2, "both receives posted");
        RdmaListener listener = listen();
        List<RawPeer> peers = new ArrayList<>();
        RdmaConnection fromA = acceptRaw(listener, queue, peers);
        RdmaConnection fromB = acceptRaw(listener, queue, peers);

        peers.get(0).send(RawPeer.sendSegment(1, 0, false, ascii("hello, ")));
        awaitTrue(() -> queue.postedReceives() == 1, "A's first segment took the oldest receive");
        peers.get(1).send(RawPeer.sendSegment(1, 0, true, ascii("from b")));
        SharedReceive b = await(second);
        assertThat(b.connection()).isSameAs(fromB);
        assertThat(b.bytes()).isEqualTo(6);
        assertThat(ascii(buffer, SLOT, 6)).isEqualTo("from b");
        assertThat(first).as("A's message is not complete").isNotDone();

        peers.get(0).send(RawPeer.sendSegment(1, 7, true, ascii("world")));
        SharedReceive a = await(first);
        assertThat(a.connection()).isSameAs(fromA);
        assertThat(a.bytes()).isEqualTo(12);
        assertThat(ascii(buffer, 0, 3) + ascii(buffer, 2 * SLOT, 9)).isEqualTo("hello, world");
    }

    @Test
    void aReceivePostedToAnEmptyQueueResumesHeldSendsEachOnItsOwnPoller() throws Exception {
        // Its pollers yield when idle, so that the whole duty cycles awaited below come at once.
        RdmaRuntime twoPollers = closeLater(fixture().runtimeBuilder().pollerThreads(2)
                .idleStrategy(IdleStrategy.YIELD).threadNamePrefix("two-pollers").build());
        SharedReceiveQueue queue = twoPollers.sharedReceiveQueue(4, 1);
        RdmaListener listener = closeLater(twoPollers.listen(anyPort()));
        List<RdmaConnection> servers = new ArrayList<>();
        List<RdmaConnection> clients = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
            servers.add(closeLater(await(await(listener.next()).withSharedReceiveQueue(queue).accept())));
            clients.add(closeLater(await(c)));
        }
        MemoryRegion source = closeLater(client.register(ByteBuffer.allocateDirect(2 * SLOT), Access.LOCAL_WRITE));
        for (int i = 0; i < 2; i++) {
            source.buffer().putInt(i * SLOT, 100 + i);
            await(clients.get(i).send(source.slice(i * SLOT, 4), OperationFlags.NONE));
        }
        // Both Sends wait on the empty queue: their bytes were in the sockets when they completed, and every poll
        // after that reads each readable socket of its connections.
        ManualTicker.awaitDutyCycles(twoPollers, 1);

        MemoryRegion buffer = receiveBuffer(twoPollers, 2 * SLOT);
        List<String> outcomes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            CompletableFuture<String> taken = new CompletableFuture<>();
            queue.receive(buffer.slice(i * SLOT, SLOT), new SharedReceiveCallback() {
                @Override
                public void received(long context, RdmaConnection connection, int bytes) {
                    taken.complete(Thread.currentThread().getName() + " " + servers.indexOf(connection) + " "
                            + buffer.buffer().getInt((int) context * SLOT));
                }

                @Override
                public void failed(long context, RdmaException error) {
                    taken.completeExceptionally(error);
                }
            }, i);
            outcomes.add(await(taken));
        }
        // Each Send filled a receive on the poller of the connection it came on, with its own bytes.
        String[] one = outcomes.get(0).split(" ");
        String[] other = outcomes.get(1).split(" ");
        assertThat(one[0]).startsWith("two-pollers").isNotEqualTo(other[0]);
        assertThat(List.of(one[1] + " " + one[2], other[1] + " " + other[2]))
                .containsExactlyInAnyOrder("0 100", "1 101");
        assertThat(servers).allMatch(RdmaConnection::isConnected);
    }

    /**
     * Connections on two pollers send into a shallow queue whose receives are re-posted from their callbacks, so
     * Sends keep finding it empty while a post is on its way: a take that missed a post and was not woken by it would
     * hold its Send until the receive wait ended the connection, and the rest would never arrive. Window 1 into one
     * receive races a lone take against each post; four connections with four in flight into two receives keep
     * takes and posts on different pollers crossing in the queue (a post refused while a taker is mid-take).
     */
    @ParameterizedTest(name = "{0} connections x window {2} into depth {3}")
    @CsvSource({"2, 10000, 1, 1", "4, 2000, 4, 2"})
    void sendsThatRaceThePostsIntoAnAlmostEmptyQueueAllArrive(int connections, int perConnection, int window,
                                                              int depth) throws Exception {
        RdmaRuntime twoPollers = closeLater(fixture().runtimeBuilder().pollerThreads(2)
                .threadNamePrefix("racing").build());
        SharedReceiveQueue queue = twoPollers.sharedReceiveQueue(depth, 1);
        RdmaListener listener = closeLater(twoPollers.listen(anyPort()));
        List<RdmaConnection> servers = new ArrayList<>();
        List<RdmaConnection> clients = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
            servers.add(closeLater(await(await(listener.next()).withSharedReceiveQueue(queue).accept())));
            clients.add(closeLater(await(c)));
        }
        MemoryRegion buffer = receiveBuffer(twoPollers, depth * SLOT);
        int[] arrived = new int[connections];
        // The round in progress: how many Sends will have arrived in all at its end, and its future. Guarded by arrived.
        int[] roundEnd = new int[1];
        List<CompletableFuture<Void>> round = new ArrayList<>(List.of(new CompletableFuture<>()));
        SharedReceiveCallback repost = new SharedReceiveCallback() {
            private int total;

            @Override
            public void received(long context, RdmaConnection connection, int bytes) {
                Status status = queue.receive(buffer.slice((int) context * SLOT, SLOT), this, context);
                synchronized (arrived) {
                    arrived[servers.indexOf(connection)]++;
                    if (status != Status.SUCCESS) {
                        round.get(0).completeExceptionally(new AssertionError("re-post refused: " + status));
                    } else if (++total == roundEnd[0]) {
                        round.get(0).complete(null);
                    }
                }
            }

            @Override
            public void failed(long context, RdmaException error) {
                synchronized (arrived) {
                    round.get(0).completeExceptionally(error);
                }
            }
        };
        for (int slot = 0; slot < depth; slot++) {
            assertThat(queue.receive(buffer.slice(slot * SLOT, SLOT), repost, slot)).isEqualTo(Status.SUCCESS);
        }
        MemoryRegion source = closeLater(client.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE));
        for (int sent = 0; sent < perConnection; sent += window) {
            CompletableFuture<Void> thisRound = new CompletableFuture<>();
            synchronized (arrived) {
                roundEnd[0] = (sent + window) * connections;
                round.set(0, thisRound);
            }
            List<CompletableFuture<?>> sends = new ArrayList<>();
            for (int i = 0; i < window; i++) {
                for (RdmaConnection c : clients) {
                    sends.add(c.send(source, OperationFlags.NONE));
                }
            }
            for (CompletableFuture<?> send : sends) {
                await(send);
            }
            // Every round ends with every Send arrived and the queue at rest, so a missed wake-up in any round holds
            // a Send there until the receive wait ends its connection.
            await(thisRound);
        }
        synchronized (arrived) {
            assertThat(arrived).containsOnly(perConnection);
        }
        assertThat(servers).allMatch(RdmaConnection::isConnected);
        awaitTrue(() -> queue.postedReceives() == depth, "every receive posted again");
    }

    @Test
    void aConnectionThatEndsMidMessageFailsOnlyTheReceiveItTook() throws Exception {
        for (boolean corrupt : new boolean[] {false, true}) {
            SharedReceiveQueue queue = server.sharedReceiveQueue(4, 1);
            MemoryRegion buffer = receiveBuffer(server, 2 * SLOT);
            CompletableFuture<SharedReceive> taken = queue.receive(buffer.slice(0, SLOT));
            CompletableFuture<SharedReceive> spare = queue.receive(buffer.slice(SLOT, SLOT));
            awaitTrue(() -> queue.postedReceives() == 2, "both receives posted");
            RdmaListener listener = listen();
            List<RawPeer> peers = new ArrayList<>();
            RdmaConnection fromA = acceptRaw(listener, queue, peers);
            peers.get(0).send(RawPeer.sendSegment(1, 0, false, ascii("part one ")));
            awaitTrue(() -> queue.postedReceives() == 1, "the first segment took a receive");
            if (corrupt) {
                peers.get(0).sendCorrupted(RawPeer.sendSegment(1, 9, true, ascii("and two")));
                awaitFailure(taken, Status.INVALID_NETWORK_RESPONSE);
                assertThat(await(fromA.disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
            } else {
                peers.get(0).close();
                awaitFailure(taken, Status.CANCELED);
                assertThat(await(fromA.disconnected())).isEqualTo(DisconnectReason.PEER_DISCONNECTED);
            }
            assertThat(queue.postedReceives()).as("the queue keeps its other receive").isEqualTo(1);
            assertThat(spare).isNotDone();

            RdmaConnection fromB = acceptRaw(listener, queue, peers);
            peers.get(1).send(RawPeer.sendSegment(1, 0, true, ascii("whole")));
            assertThat(await(spare).connection()).isSameAs(fromB);
            assertThat(ascii(buffer, SLOT, 5)).isEqualTo("whole");
        }
    }

    @Test
    void aQueueClosedWhileItsConnectionsAreBeingDisconnectedCancelsItsReceivesOnceTheyEnded() {
        SharedReceiveQueue queue = server.sharedReceiveQueue(4, 1);
        MemoryRegion buffer = receiveBuffer(server, SLOT);
        CompletableFuture<SharedReceive> posted = queue.receive(buffer.slice(0, SLOT));
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        RdmaConnection accepted = closeLater(await(await(listener.next()).withSharedReceiveQueue(queue).accept()));
        closeLater(await(c));
        assertStatus(Status.INVALID_DEVICE_STATE, queue::close);

        accepted.close(); // asks for the disconnect without waiting: the queue is no longer in use
        queue.close();
        awaitFailure(queue.receive(buffer.slice(0, SLOT)), Status.INVALID_DEVICE_STATE);
        awaitFailure(posted, Status.CANCELED);
        assertThat(accepted.disconnected()).isDone();
    }

    @Test
    void aSendThatWaitsPastTheReceiveWaitEndsItsConnectionButNotTheQueue() throws Exception {
        RdmaRuntime impatient = closeLater(fixture().runtimeBuilder().handshakeTimeout(Duration.ofMillis(500))
                .threadNamePrefix("impatient").build());
        SharedReceiveQueue queue = impatient.sharedReceiveQueue(4, 1);
        RdmaListener listener = closeLater(impatient.listen(anyPort()));
        List<RawPeer> peers = new ArrayList<>();
        RdmaConnection fromA = acceptRaw(listener, queue, peers);
        peers.get(0).send(RawPeer.sendSegment(1, 0, true, ascii("nobody listens")));
        assertThat(await(fromA.disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);

        MemoryRegion buffer = receiveBuffer(impatient, SLOT);
        CompletableFuture<SharedReceive> later = queue.receive(buffer.slice(0, SLOT));
        awaitTrue(() -> queue.postedReceives() == 1, "the receive stays posted");
        RdmaConnection fromB = acceptRaw(listener, queue, peers);
        peers.get(1).send(RawPeer.sendSegment(1, 0, true, ascii("late")));
        assertThat(await(later).connection()).isSameAs(fromB);
        assertThat(ascii(buffer, 0, 4)).isEqualTo("late");
    }
}
