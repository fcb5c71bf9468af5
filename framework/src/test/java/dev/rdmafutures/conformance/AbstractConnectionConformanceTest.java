package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.ConnectBuilder;
import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.DeferredConnectBuilder;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Connecting and accepting as NDK defines them (NdkConnect, NdkCompleteConnect, NdkAcceptEx, NdkReject), for any
 * provider.
 */
public abstract class AbstractConnectionConformanceTest extends ConformanceSupport {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Private data as text, without the zero padding IB/RoCE adds up to the field's size (as NDK documents). */
    private static String text(byte[] privateData) {
        int end = privateData.length;
        while (end > 0 && privateData[end - 1] == 0) {
            end--;
        }
        return new String(privateData, 0, end, StandardCharsets.UTF_8);
    }

    @Test
    void readLimitsNegotiateToTheMinimumInBothDirections() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withReadLimits(4, 8).start();
        ConnectionRequest request = await(listener.next());
        assertThat(request.requestedReadLimits()).isEqualTo(new ReadLimits(4, 8));
        RdmaConnection s = closeLater(await(request.withReadLimits(6, 2).accept()));
        RdmaConnection cc = closeLater(await(c));
        // client inbound = min(4, server outbound 2); client outbound = min(8, server inbound 6)
        assertThat(cc.connectionData().readLimits()).isEqualTo(new ReadLimits(2, 6));
        // server inbound = min(6, client outbound 8); server outbound = min(2, client inbound 4)
        assertThat(s.connectionData().readLimits()).isEqualTo(new ReadLimits(6, 2));
    }

    @Test
    void readLimitsAboveTheAdapterMaximumAreCapped() {
        RdmaListener listener = listen();
        int maxIn = server.adapterInfo().maxInboundReadLimit();
        int maxOut = server.adapterInfo().maxOutboundReadLimit();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withReadLimits(ReadLimits.MAX, ReadLimits.MAX).start();
        ConnectionRequest request = await(listener.next());
        assertThat(request.requestedReadLimits())
                .isEqualTo(new ReadLimits(client.adapterInfo().maxInboundReadLimit(),
                        client.adapterInfo().maxOutboundReadLimit()));
        RdmaConnection s = closeLater(await(request.withReadLimits(ReadLimits.MAX, ReadLimits.MAX).accept()));
        closeLater(await(c));
        assertThat(s.connectionData().readLimits().inbound())
                .isEqualTo(Math.min(maxIn, client.adapterInfo().maxOutboundReadLimit()));
        assertThat(s.connectionData().readLimits().outbound())
                .isEqualTo(Math.min(maxOut, client.adapterInfo().maxInboundReadLimit()));
    }

    @Test
    void privateDataTravelsWithRequestAndAccept() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withPrivateData(bytes("hello from client")).start();
        ConnectionRequest request = await(listener.next());
        assertThat(new String(request.privateData(), StandardCharsets.UTF_8)).startsWith("hello from client");
        RdmaConnection s = closeLater(await(request.withPrivateData(bytes("welcome")).accept()));
        RdmaConnection cc = closeLater(await(c));
        assertThat(new String(cc.connectionData().peerPrivateData(), StandardCharsets.UTF_8)).startsWith("welcome");
        assertThat(new String(s.connectionData().peerPrivateData(), StandardCharsets.UTF_8))
                .startsWith("hello from client");
        assertThat(cc.remoteAddress().getPort()).isEqualTo(listener.localAddress().getPort());
        assertThat(s.remoteAddress()).isEqualTo(cc.localAddress());
    }

    @Test
    void maximumPrivateDataFitsAndOneMoreOverflows() {
        RdmaListener listener = listen();
        int max = client.adapterInfo().maxConnectPrivateData();
        byte[] full = new byte[max];
        for (int i = 0; i < max; i++) {
            full[i] = (byte) i;
        }
        awaitFailure(client.connector().connect(listener.localAddress()).withPrivateData(new byte[max + 1]).start(),
                Status.BUFFER_OVERFLOW);
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withPrivateData(full).start();
        ConnectionRequest request = await(listener.next());
        assertThat(request.privateData()).startsWith(full);
        awaitFailure(request.withPrivateData(new byte[server.adapterInfo().maxAcceptPrivateData() + 1]).accept(),
                Status.BUFFER_OVERFLOW);
        awaitFailure(request.reject(new byte[server.adapterInfo().maxRejectPrivateData() + 1]),
                Status.BUFFER_OVERFLOW);
        // An overflow leaves the request unanswered: it can still be accepted.
        closeLater(await(request.withPrivateData(new byte[0]).accept()));
        closeLater(await(c));
    }

    @Test
    void rejectFailsTheConnectWithRefusedAndThePeersPrivateData() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        ConnectionRequest request = await(listener.next());
        await(request.reject(bytes("go away")));
        RdmaException refused = awaitFailure(c, Status.CONNECTION_REFUSED);
        assertThat(new String(refused.peerPrivateData(), StandardCharsets.UTF_8)).startsWith("go away");
        assertThat(refused.isRetryable()).isTrue();
    }

    @Test
    void answeringARequestTwiceFails() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        ConnectionRequest request = await(listener.next());
        closeLater(await(request.accept()));
        awaitFailure(request.accept(), Status.INVALID_DEVICE_STATE);
        awaitFailure(request.reject(new byte[0]), Status.INVALID_DEVICE_STATE);
        closeLater(await(c));
    }

    @Test
    void twoPhaseConnectHoldsThePassiveSideUntilComplete() throws Exception {
        assumeTrue(client.adapterInfo().passiveAcceptWaitsForCompleteConnect(),
                client.adapterInfo().deviceName() + " establishes the passive side without CompleteConnect");
        RdmaListener listener = listen();
        CompletableFuture<PendingConnection> p = client.connector().connect(listener.localAddress())
                .withPrivateData(bytes("two-phase")).deferCompletion().start();
        ConnectionRequest request = await(listener.next());
        CompletableFuture<RdmaConnection> accepted = request.withPrivateData(bytes("accepted")).accept();
        PendingConnection pending = await(p);
        ConnectionData data = pending.connectionData();
        assertThat(new String(data.peerPrivateData(), StandardCharsets.UTF_8)).startsWith("accepted");
        // Barrier: anything the client sent on seeing the Reply (a wrong early RTR) has been handled by the server.
        barrierThroughANewConnection();
        assertThat(accepted).as("passive accept completes only after CompleteConnect").isNotDone();
        RdmaConnection cc = closeLater(await(pending.complete()));
        RdmaConnection s = closeLater(await(accepted));
        assertThat(cc.isConnected()).isTrue();
        assertThat(s.isConnected()).isTrue();
        awaitFailure(pending.complete(), Status.INVALID_DEVICE_STATE);
    }

    @Test
    void startOfABuilderMadeTwoPhaseFailsItsFutureAndLeavesTheTwoPhaseStartUsable() {
        assumeTrue(client.adapterInfo().passiveAcceptWaitsForCompleteConnect(),
                client.adapterInfo().deviceName() + " establishes the passive side without CompleteConnect");
        RdmaListener listener = listen();
        ConnectBuilder builder = client.connector().connect(listener.localAddress());
        DeferredConnectBuilder twoPhase = builder.deferCompletion();
        awaitFailure(builder.start(), Status.INVALID_DEVICE_STATE); // a future, not a throw, as start() promises
        CompletableFuture<PendingConnection> p = twoPhase.start();
        CompletableFuture<RdmaConnection> accepted = await(listener.next()).accept();
        RdmaConnection cc = closeLater(await(await(p).complete()));
        closeLater(await(accepted));
        assertThat(cc.isConnected()).isTrue();
    }

    @Test
    void twoPhaseRejectAbortsThePassiveAccept() {
        assumeTrue(client.adapterInfo().passiveAcceptWaitsForCompleteConnect(),
                client.adapterInfo().deviceName() + " establishes the passive side without CompleteConnect");
        RdmaListener listener = listen();
        CompletableFuture<PendingConnection> p = client.connector().connect(listener.localAddress())
                .deferCompletion().start();
        CompletableFuture<RdmaConnection> accepted = await(listener.next()).accept();
        await(await(p).reject());
        awaitFailure(accepted, Status.CONNECTION_ABORTED);
    }

    @Test
    void theAcceptorSeesIoTimeoutWhenTheConnectorsPendingDeadlinePasses() {
        assumeTrue(client.adapterInfo().passiveAcceptWaitsForCompleteConnect(),
                client.adapterInfo().deviceName() + " establishes the passive side without CompleteConnect");
        RdmaListener listener = listen();
        CompletableFuture<PendingConnection> p = client.connector().connect(listener.localAddress())
                .withTimeout(java.time.Duration.ofSeconds(1)).deferCompletion().start();
        CompletableFuture<RdmaConnection> accepted = await(listener.next()).accept();
        PendingConnection pending = await(p);
        // Nobody completes or rejects: the connector's own deadline passes first (the server waits 10 s).
        awaitFailure(accepted, Status.IO_TIMEOUT);
        awaitFailure(pending.complete(), Status.INVALID_DEVICE_STATE);
    }

    @Test
    void aPassiveSideWhosePeerNeverCompletesTimesOut() throws Exception {
        assumeTrue(client.adapterInfo().passiveAcceptWaitsForCompleteConnect(),
                client.adapterInfo().deviceName() + " establishes the passive side without CompleteConnect");
        var quickServer = closeLater(fixture().runtimeBuilder().handshakeTimeout(java.time.Duration.ofSeconds(1))
                .threadNamePrefix("quick-server").build());
        RdmaListener listener = closeLater(quickServer.listen(anyPort()));
        CompletableFuture<PendingConnection> p = client.connector().connect(listener.localAddress())
                .deferCompletion().start();
        CompletableFuture<RdmaConnection> accepted = await(listener.next()).accept();
        PendingConnection pending = await(p);
        awaitFailure(accepted, Status.IO_TIMEOUT);
        // Completing races the passive side's close on the wire, as in NDK: complete once the close has arrived,
        // which fails the client's attempt, counted as a failed connect.
        Waits.until("the client saw the passive side give up", WAIT,
                () -> client.metrics().connectFailures().getOrDefault(Status.CONNECTION_ABORTED, 0L) == 1);
        awaitFailure(pending.complete(), Status.CONNECTION_ABORTED);
    }

    @Test
    void disconnectCallbackFiresExactlyOnceAndOnlyForThePeersDisconnect() {
        RdmaListener listener = listen();
        List<DisconnectReason> serverSaw = new CopyOnWriteArrayList<>();
        List<DisconnectReason> clientSaw = new CopyOnWriteArrayList<>();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .onDisconnect(clientSaw::add).start();
        RdmaConnection s = await(await(listener.next()).onDisconnect(serverSaw::add).accept());
        RdmaConnection cc = await(c);

        await(cc.disconnect());
        assertThat(await(cc.disconnected())).isEqualTo(DisconnectReason.LOCAL_DISCONNECT);
        assertThat(await(s.disconnected())).isEqualTo(DisconnectReason.PEER_DISCONNECTED);
        await(s.disconnect());
        assertThat(serverSaw).containsExactly(DisconnectReason.PEER_DISCONNECTED);
        assertThat(clientSaw).as("no callback for our own disconnect").isEmpty();
        assertThat(cc.isConnected()).isFalse();
        assertThat(s.isConnected()).isFalse();
        assertThat(cc.disconnect()).isSameAs(cc.disconnect());
    }

    @Test
    void aTerminationOverAProtocolErrorRunsBothSidesCallbacksOnce() {
        // Neither application asked for this end: the side that terminated (the server, refusing a read through a
        // token it revoked) gets its callback too, as DisconnectReason.PROTOCOL_ERROR says.
        RdmaListener listener = listen();
        List<DisconnectReason> serverSaw = new CopyOnWriteArrayList<>();
        List<DisconnectReason> clientSaw = new CopyOnWriteArrayList<>();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .onDisconnect(clientSaw::add).start();
        RdmaConnection s = closeLater(await(await(listener.next()).onDisconnect(serverSaw::add).accept()));
        RdmaConnection cc = closeLater(await(c));
        MemoryRegion local = closeLater(client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        // A revoked token, which every provider refuses (siw does not check a region's remote-read right).
        MemoryRegion revoked = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
        RemoteBuffer token = revoked.remote();
        revoked.deregister();
        awaitFailure(cc.read(local.slice(0, 64), token, 0, OperationFlags.NONE), Status.ACCESS_VIOLATION);
        DisconnectReason clientEnd = await(cc.disconnected());
        DisconnectReason serverEnd = await(s.disconnected());
        assertThat(clientEnd.isPeerInitiated()).as("client: %s", clientEnd).isTrue();
        assertThat(serverEnd.isPeerInitiated()).as("server: %s", serverEnd).isTrue();
        await(cc.disconnect());
        await(s.disconnect());
        assertThat(clientSaw).containsExactly(clientEnd);
        assertThat(serverSaw).containsExactly(serverEnd);
    }

    @Test
    void passiveSideDisconnectReachesTheActiveSidesCallback() {
        RdmaListener listener = listen();
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .onDisconnect(r -> calls.incrementAndGet()).start();
        RdmaConnection s = await(await(listener.next()).accept());
        RdmaConnection cc = await(c);
        await(s.disconnect());
        assertThat(await(cc.disconnected())).isEqualTo(DisconnectReason.PEER_DISCONNECTED);
        await(cc.disconnect());
        assertThat(calls).hasValue(1);
    }

    @Test
    void noListenerMeansConnectionRefused() {
        RdmaListener listener = server.listen(anyPort());
        InetSocketAddress gone = listener.localAddress();
        listener.close();
        RdmaException e = awaitFailure(client.connector().connect(gone).start(), Status.CONNECTION_REFUSED);
        assertThat(e.isRetryable()).isTrue();
    }

    /**
     * A connect nobody answers fails at its deadline while the transport still tries, and neither the poller nor the
     * runtime's close waits for the transport (on iWARP the kernel still holds the connecting queue pair when the
     * deadline releases it). The peer is a TCP socket that takes the connection and never says a word: iWARP's MPA
     * request waits for a reply; IB/RoCE's CM request, whose port no RDMA listener has, is refused at once (nothing to
     * show there).
     */
    @Test
    void aConnectNobodyAnswersFailsAtItsDeadlineAndNeitherThePollerNorTheCloseWaitsForIt() throws Exception {
        RdmaListener listener = listen();
        try (ServerSocket silent = new ServerSocket(0, 1, fixture().deviceAddress())) {
            CompletableFuture<RdmaConnection> unanswered = client.connector()
                    .connect(new InetSocketAddress(fixture().deviceAddress(), silent.getLocalPort()))
                    .withTimeout(Duration.ofSeconds(1)).start();
            // Within a few seconds of its deadline: siw's own MPA timeout (10 s) is not what ends it.
            assertThat(unanswered).failsWithin(Duration.ofSeconds(6));
            RdmaException e = awaitAnyFailure(unanswered);
            assumeTrue(e.status() != Status.CONNECTION_REFUSED, "refused at once: " + e.getMessage());
            assertThat(e.status()).as(e.getMessage()).isEqualTo(Status.IO_TIMEOUT);
            connectPair(listener); // served by the same poller, at once
            client.close();
        }
        assertThat(Thread.getAllStackTraces().keySet()).as("live threads after the close")
                .noneMatch(t -> t.getName().startsWith(CLIENT_POLLER) && t.isAlive());
    }

    @Test
    void startingARequestTwiceFailsWithConnectionActive() {
        RdmaListener listener = listen();
        var request = client.connector().connect(listener.localAddress());
        CompletableFuture<RdmaConnection> first = request.start();
        awaitFailure(request.start(), Status.CONNECTION_ACTIVE);
        closeLater(await(await(listener.next()).accept()));
        closeLater(await(first));
    }

    @Test
    void cancellingAPendingConnectAbortsItOnBothSides() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        ConnectionRequest request = await(listener.next());
        assertThat(c.cancel(true)).isTrue();
        CompletableFuture<RdmaConnection> accepted = request.accept();
        if (server.adapterInfo().passiveAcceptWaitsForCompleteConnect()) {
            // The cancel was handed to the client's poller before the accept left, so it runs before the answer
            // is read there; the peer's confirmation never comes.
            awaitFailure(accepted, Status.CONNECTION_ABORTED);
            return;
        }
        // Kernel iWARP (siw) establishes the passive side when it sends the MPA reply, and the cancel does not close
        // the client's socket before that: the accept may complete, and the connection it made then ends at once.
        RdmaConnection s = await(accepted.handle((connection, error) -> connection));
        if (s != null) {
            assertThat(await(s.disconnected())).isIn(DisconnectReason.PEER_DISCONNECTED,
                    DisconnectReason.CONNECTION_RESET, DisconnectReason.PROTOCOL_ERROR);
        } else {
            awaitFailure(accepted, Status.CONNECTION_ABORTED);
        }
    }

    @Test
    void closingTheRuntimeFailsWhatIsPendingAndEndsConnections() {
        RdmaListener listener = listen();
        Pair pair = connectPair(listener);
        CompletableFuture<RdmaConnection> pending = client.connector().connect(listener.localAddress()).start();
        await(listener.next()); // taken, never answered
        client.close();
        awaitFailure(pending, Status.CANCELED);
        assertThat(await(pair.client().disconnected())).isEqualTo(DisconnectReason.RUNTIME_CLOSED);
        assertThat(await(pair.server().disconnected())).isEqualTo(DisconnectReason.PEER_DISCONNECTED);
        awaitFailure(client.connector().connect(listener.localAddress()).start(), Status.INVALID_DEVICE_STATE);
        assertStatus(Status.INVALID_DEVICE_STATE, () -> client.listen(anyPort()));
    }

    @Test
    void badArgumentsAreRejectedAtOnceAndTheRuntimeKeepsServing() {
        RdmaListener listener = listen();
        var request = client.connector().connect(listener.localAddress());
        for (int[] limits : new int[][] {{0, 1}, {1, 0}, {-1, 4}, {ReadLimits.MAX + 1, 4}}) {
            assertStatus(Status.INVALID_PARAMETER, () -> request.withReadLimits(limits[0], limits[1]));
        }
        assertThatThrownBy(() -> request.withPrivateData(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> request.withTimeout(java.time.Duration.ZERO)).isInstanceOf(RdmaException.class);
        assertStatus(Status.INVALID_ADDRESS,
                () -> client.connector().connect(InetSocketAddress.createUnresolved("nowhere", 1)));
        assertStatus(Status.INVALID_ADDRESS,
                () -> client.connector().connect(new InetSocketAddress(fixture().deviceAddress(), 0)));
        assertThatThrownBy(() -> client.connector().connect(null)).isInstanceOf(NullPointerException.class);
        // The runtime still serves.
        connectPair(listener);
    }

    @Test
    void listeningOnABusyAddressIsASharingViolation() {
        RdmaListener listener = listen();
        assertStatus(Status.SHARING_VIOLATION, () -> server.listen(listener.localAddress()));
    }

    @Test
    void connectingFromABusyLocalAddressIsASharingViolation() {
        RdmaListener listener = listen();
        RdmaListener other = listen();
        awaitFailure(client.connector().connect(listener.localAddress()).from(other.localAddress()).start(),
                Status.SHARING_VIOLATION);
    }

    @Test
    void aLocalAddressOfAnotherHostIsInvalid() throws Exception {
        InetSocketAddress foreign = new InetSocketAddress(java.net.InetAddress.getByName("192.0.2.1"), 0);
        RdmaListener listener = listen();
        awaitFailure(client.connector().connect(listener.localAddress()).from(foreign).start(),
                Status.INVALID_ADDRESS);
        assertStatus(Status.INVALID_ADDRESS, () -> server.listen(foreign));
    }

    @Test
    void aFullBacklogRefusesFurtherRequests() {
        var smallServer = closeLater(fixture().runtimeBuilder().listenBacklog(1).threadNamePrefix("small").build());
        RdmaListener listener = closeLater(smallServer.listen(anyPort()));
        CompletableFuture<RdmaConnection> first = client.connector().connect(listener.localAddress()).start();
        CompletableFuture<RdmaConnection> second = client.connector().connect(listener.localAddress()).start();
        // The queued request is answered before the refusal is awaited, so that a slow refusal cannot outlast its
        // handshake timeout (the refusal was slow on rxe when the transport dropped requests the listener should
        // refuse: see aBurstThatLandsWhileThePollerIsBusyIsQueuedOrRefusedNotDropped).
        closeLater(await(await(listener.next()).accept()));
        await(CompletableFuture.allOf(first.handle((c, e) -> null), second.handle((c, e) -> null)));
        CompletableFuture<RdmaConnection> refused = first.isCompletedExceptionally() ? first : second;
        awaitFailure(refused, Status.CONNECTION_REFUSED);
        closeLater(await(refused == first ? second : first));
    }

    @Test
    void aBurstThatLandsWhileThePollerIsBusyIsQueuedOrRefusedNotDropped() throws Exception {
        // An application-driven runtime that this thread does not poll yet: the burst waits in the transport. Were
        // the transport's queue the listener's backlog (1), it would drop three requests without a reply (rdma_cm
        // does), and their peers would retry after the CM's response timeout of about 8 s, past the 5 s here.
        var busy = closeLater(fixture().runtimeBuilder().listenBacklog(1).pollerThreads(0)
                .threadNamePrefix("busy").build());
        RdmaListener listener = closeLater(busy.listen(anyPort()));
        Duration timeout = Duration.ofSeconds(5);
        List<CompletableFuture<RdmaConnection>> burst = IntStream.range(0, 4)
                .mapToObj(i -> client.connector().connect(listener.localAddress()).withTimeout(timeout).start())
                .toList();
        // The poller is busy: the requests reach the listener's transport and wait there. Barrier: the client sends
        // them before a later connect to the other runtime. On another thread: this owner's waits would poll `busy`.
        CompletableFuture.runAsync(this::barrierThroughANewConnection).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (burst.stream().filter(CompletableFuture::isDone).count() < 3 && System.nanoTime() < deadline) {
            busy.poll();
        }
        List<CompletableFuture<RdmaConnection>> refused = burst.stream().filter(CompletableFuture::isDone).toList();
        assertThat(refused).as("requests answered within %s", timeout).hasSize(3);
        for (CompletableFuture<RdmaConnection> r : refused) {
            awaitFailure(r, Status.CONNECTION_REFUSED);
        }
        CompletableFuture<RdmaConnection> queued = burst.stream().filter(f -> !f.isDone()).findFirst().orElseThrow();
        closeLater(await(await(listener.next()).accept())); // the owner's wait polls the runtime
        closeLater(await(queued));
    }

    @Test
    void closingAListenerCancelsWaitersAndRefusesQueuedRequests() throws Exception {
        RdmaListener listener = server.listen(anyPort());
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        // Whether the request is still in TCP's accept queue, in MPA setup, or already queued by the listener when
        // it closes, the peer must see a refusal; the barrier (the request left before the barrier's) makes the last
        // case, the interesting one, the one that happens.
        barrierThroughANewConnection();
        listener.close();
        awaitFailure(listener.next(), Status.CANCELED);
        RdmaException e = awaitFailure(c, Status.CONNECTION_REFUSED);
        assertThat(text(e.peerPrivateData())).isEmpty();
    }

    @Test
    void aHandlerReceivesRequestsAndAThrowingHandlerRefusesOnlyItsRequest() {
        RdmaListener listener = listen();
        AtomicInteger seen = new AtomicInteger();
        listener.onRequest(r -> {
            if (seen.incrementAndGet() == 1) {
                throw new IllegalStateException("handler bug");
            }
            r.accept().thenAccept(this::closeLater);
        });
        awaitFailure(client.connector().connect(listener.localAddress()).start(), Status.CONNECTION_REFUSED);
        closeLater(await(client.connector().connect(listener.localAddress()).start()));
        assertThat(server.pollerErrorCount()).isGreaterThanOrEqualTo(1);
        assertThatThrownBy(() -> listener.onRequest(r -> { })).isInstanceOf(RdmaException.class);
        awaitFailure(listener.next(), Status.INVALID_DEVICE_STATE);
    }

    @Test
    void manyConnectionsFromSeveralThreadsAllEstablish() throws Exception {
        RdmaListener listener = listen();
        listener.onRequest(r -> r.withPrivateData(r.privateData()).accept().thenAccept(this::closeLater));
        int threads = 4;
        int perThread = 10;
        List<CompletableFuture<RdmaConnection>> all = new CopyOnWriteArrayList<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers[t] = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    all.add(client.connector().connect(listener.localAddress())
                            .withPrivateData(bytes(id + ":" + i)).start());
                }
            });
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        for (CompletableFuture<RdmaConnection> f : all) {
            RdmaConnection c = closeLater(await(f));
            assertThat(text(c.connectionData().peerPrivateData())).matches("\\d+:\\d+");
        }
        assertThat(all).hasSize(threads * perThread);
    }
}
