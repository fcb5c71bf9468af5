package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The data path as RdmaConnection documents it (NDK's NdkRead, NdkWrite, NdkSend, NdkReceive): READ, WRITE,
 * SEND/RECEIVE, flags, limits and errors, for any provider.
 */
public abstract class AbstractDataPathConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    protected MemoryRegion register(dev.rdmafutures.RdmaRuntime runtime, int size, Access... access) {
        return closeLater(runtime.register(ByteBuffer.allocateDirect(size), access));
    }

    private static void fill(MemoryRegion region, long seed) {
        ByteBuffer b = region.buffer();
        Random r = new Random(seed);
        while (b.remaining() >= 8) {
            b.putLong(r.nextLong());
        }
        while (b.hasRemaining()) {
            b.put((byte) r.nextInt());
        }
    }

    private static long checksum(MemoryRegion region, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(region.buffer().slice(offset, length));
        return crc.getValue();
    }

    /** Posts a receive and returns once it is posted ({@link #awaitPosted}). */
    private CompletableFuture<Completion> postedReceive(RdmaConnection receiver, MemoryRegion into, int offset,
                                                        int length, MemoryRegion senderRegion) {
        CompletableFuture<Completion> received = receiver.receive(into.slice(offset, length));
        awaitPosted(receiver, into, senderRegion);
        return received;
    }

    /**
     * Waits until the peer has placed every earlier write of {@code connection} into {@code remote}: a write
     * completes when the transport took it, and a zero-length read is answered only after what preceded it.
     */
    private void placed(RdmaConnection connection, MemoryRegion scratch, MemoryRegion remote) {
        await(connection.read(scratch.slice(0, 0), remote.remote(), 0, OperationFlags.NONE));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 4096, 65503, 65504, 65505, 65536, 1 << 20, 16 << 20})
    void readWriteAndSendMoveEveryByteAtUnalignedOffsets(int size) {
        Pair pair = connectPair(listen());
        MemoryRegion clientMem = register(client, size + 16, ALL);
        MemoryRegion serverMem = register(server, size + 16, ALL);
        fill(serverMem, size);
        fill(clientMem, ~size);

        Completion read = await(pair.client().read(clientMem.slice(3, size), serverMem.remote(), 5,
                OperationFlags.NONE));
        assertThat(read.bytes()).isEqualTo(size);
        assertThat(checksum(clientMem, 3, size)).isEqualTo(checksum(serverMem, 5, size));

        fill(clientMem, size * 31L);
        await(pair.client().write(clientMem.slice(1, size), serverMem.remote(), 7, OperationFlags.NONE));
        // A read after a write from the same side sees it: the stream is ordered.
        MemoryRegion probe = register(client, size, ALL);
        await(pair.client().read(probe.slice(0, size), serverMem.remote(), 7, OperationFlags.NONE));
        assertThat(checksum(probe, 0, size)).isEqualTo(checksum(clientMem, 1, size));

        CompletableFuture<Completion> received = postedReceive(pair.server(), serverMem, 2, size + 10, clientMem);
        fill(clientMem, size * 7L);
        await(pair.client().send(clientMem.slice(9, size), OperationFlags.NONE));
        assertThat(await(received).bytes()).isEqualTo(size);
        assertThat(checksum(serverMem, 2, size)).isEqualTo(checksum(clientMem, 9, size));
    }

    @Test
    void zeroLengthOperationsComplete() {
        Pair pair = connectPair(listen());
        MemoryRegion a = register(client, 16, ALL);
        MemoryRegion b = register(server, 16, ALL);
        assertThat(await(pair.client().read(a.slice(0, 0), b.remote(), 0, OperationFlags.NONE)).bytes()).isZero();
        assertThat(await(pair.client().write(a.slice(0, 0), b.remote(), 0, OperationFlags.NONE)).bytes()).isZero();
        CompletableFuture<Completion> rx = postedReceive(pair.server(), b, 0, 16, a);
        await(pair.client().send(a.slice(0, 0), OperationFlags.NONE));
        assertThat(await(rx).bytes()).isZero();
    }

    @Test
    void readsBeyondTheOutboundLimitWaitInOrderAndAllComplete() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .withReadLimits(4, 1).start();
        RdmaConnection s = closeLater(await(await(listener.next()).accept()));
        RdmaConnection cc = closeLater(await(c));
        assertThat(cc.connectionData().readLimits().outbound()).isEqualTo(1);
        MemoryRegion remote = register(server, 64 * 1024, ALL);
        fill(remote, 99);
        MemoryRegion local = register(client, 64 * 1024, ALL);
        List<CompletableFuture<Completion>> reads = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            reads.add(cc.read(local.slice(i * 2048, 2048), remote.remote(), i * 2048, OperationFlags.NONE));
        }
        List<Integer> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < reads.size(); i++) {
            int index = i;
            reads.get(i).thenRun(() -> order.add(index));
        }
        reads.forEach(ConformanceSupport::await);
        assertThat(checksum(local, 0, 64 * 1024)).isEqualTo(checksum(remote, 0, 64 * 1024));
        assertThat(order).isSorted();
        assertThat(s.isConnected()).isTrue();
    }

    @Test
    void silentSuccessCompletesWithTheNextSignalledOperation() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 4096, ALL);
        MemoryRegion remote = register(server, 4096, ALL);
        fill(local, 1);
        CompletableFuture<Completion> silent = pair.client().write(local.slice(0, 1024), remote.remote(), 0,
                OperationFlags.SILENT_SUCCESS);
        CompletableFuture<Completion> signalled = pair.client().write(local.slice(1024, 1024), remote.remote(), 1024,
                OperationFlags.NONE);
        await(signalled);
        assertThat(await(silent).bytes()).isEqualTo(1024);
        placed(pair.client(), local, remote);
        assertThat(checksum(remote, 0, 2048)).isEqualTo(checksum(local, 0, 2048));
    }

    @Test
    void aFencedOperationStartsAfterEarlierReadsAndSeesTheirEffects() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 8192, ALL);
        MemoryRegion remote = register(server, 8192, ALL);
        fill(remote, 5);
        CompletableFuture<Completion> read = pair.client().read(local.slice(0, 4096), remote.remote(), 0,
                OperationFlags.NONE);
        // The fenced write sends what the read brought in: without the fence it would send stale bytes.
        CompletableFuture<Completion> write = pair.client().write(local.slice(0, 4096), remote.remote(), 4096,
                OperationFlags.READ_FENCE);
        await(read);
        await(write);
        placed(pair.client(), local, remote);
        assertThat(checksum(remote, 4096, 4096)).isEqualTo(checksum(remote, 0, 4096));
    }

    @Test
    void readLocalInvalidateRevokesTheLocalTokenWhereSupported() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        await(pair.client().read(local.slice(0, 64), remote.remote(), 0, OperationFlags.RDMA_READ_LOCAL_INVALIDATE));
        assertThat(local.isValid()).isEqualTo(!client.adapterInfo().isReadLocalInvalidateSupported());
    }

    @Test
    void deferredOperationsGoOutWithTheNextOneAndBatchesPostInOrder() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64 * 1024, ALL);
        MemoryRegion remote = register(server, 64 * 1024, ALL);
        fill(local, 11);
        CompletableFuture<Completion> deferred = pair.client().write(local.slice(0, 4096), remote.remote(), 0,
                OperationFlags.DEFER);
        await(pair.client().write(local.slice(4096, 4096), remote.remote(), 4096, OperationFlags.NONE));
        await(deferred);
        var batch = pair.client().batch();
        for (int i = 2; i < 16; i++) {
            batch.write(local.slice(i * 4096, 4096), remote.remote(), i * 4096, OperationFlags.NONE);
        }
        batch.post().forEach(ConformanceSupport::await);
        placed(pair.client(), local, remote);
        assertThat(checksum(remote, 0, 64 * 1024)).isEqualTo(checksum(local, 0, 64 * 1024));
    }

    @Test
    void aBatchCarriesEveryVerbAndEveryShapeOfLocalBufferInOrder() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 256, ALL);
        MemoryRegion remote = register(server, 256, ALL);
        MemoryRegion serverInbox = register(server, 64, ALL);
        MemoryRegion clientInbox = register(client, 32, ALL);
        fill(local, 5);
        fill(remote, 9);
        // The server's receive, then the client's: a batch mixes receives with the operations it transmits.
        CompletableFuture<Completion> serverReceive = pair.server().receive(serverInbox);
        await(pair.server().read(serverInbox.slice(0, 0), local.remote(), 0, OperationFlags.NONE));
        ScatterGatherList halves = new ScatterGatherList(2).add(local, 64, 16).add(local, 96, 16);
        OperationFlags fence = client.adapterInfo().isReadFenceOnReadSupported()
                ? OperationFlags.READ_FENCE : OperationFlags.NONE;
        var batch = pair.client().batch()
                .receive(clientInbox)
                .write(local.slice(0, 64), remote.remote(), 128, OperationFlags.NONE)
                .read(halves, remote.remote(), 0, fence)
                .send(local.slice(200, 40), OperationFlags.NONE);
        List<CompletableFuture<Completion>> results = batch.post();
        assertThat(results).hasSize(4);
        assertThat(await(results.get(1)).bytes()).isEqualTo(64);
        assertThat(await(results.get(2)).bytes()).isEqualTo(32);
        assertThat(await(results.get(3)).bytes()).isEqualTo(40);
        assertThat(await(serverReceive).bytes()).isEqualTo(40);
        assertThat(checksum(remote, 128, 64)).isEqualTo(checksum(local, 0, 64));
        assertThat(checksum(local, 64, 16)).isEqualTo(checksum(remote, 0, 16));
        assertThat(checksum(local, 96, 16)).isEqualTo(checksum(remote, 16, 16));
        assertThat(checksum(serverInbox, 0, 40)).isEqualTo(checksum(local, 200, 40));
        await(pair.server().send(remote.slice(0, 12), OperationFlags.NONE));
        assertThat(await(results.get(0)).bytes()).isEqualTo(12);
        assertThatThrownBy(() -> batch.receive(clientInbox)).isInstanceOf(RdmaException.class)
                .extracting(e -> ((RdmaException) e).status()).isEqualTo(Status.INVALID_DEVICE_STATE);
    }

    @Test
    void aBatchedSendWithInvalidateRevokesThePeersRegionOrIsRefusedWhereUnsupported() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 16, ALL);
        MemoryRegion target = register(server, 16, ALL);
        MemoryRegion rxBuffer = register(server, 16, ALL);
        if (!client.adapterInfo().isRemoteInvalidateSupported()) {
            awaitFailure(pair.client().batch().sendAndInvalidate(local.slice(0, 8), target.token(),
                    OperationFlags.NONE).post().get(0), Status.NOT_SUPPORTED);
            assertThat(target.isValid()).isTrue();
            return;
        }
        assumeTrue(server.adapterInfo().isRegionInvalidateSupported(), server.adapterInfo().deviceName()
                + " revokes no region tokens (AdapterInfo.isRegionInvalidateSupported); its windows have their suite");
        CompletableFuture<Completion> rx = pair.server().receive(rxBuffer);
        await(pair.server().read(rxBuffer.slice(0, 0), local.remote(), 0, OperationFlags.NONE));
        List<CompletableFuture<Completion>> results = pair.client().batch()
                .sendAndInvalidate(local.slice(0, 8), target.token(), OperationFlags.NONE).post();
        await(results.get(0));
        assertThat(await(rx).invalidatedToken()).hasValue(target.token());
        assertThat(target.isValid()).isFalse();
    }

    /**
     * The side that did not detect a protocol violation: PROTOCOL_ERROR where the transport tells it (an iWARP
     * Terminate), PEER_DISCONNECTED where it only sees the disconnect (verbs on IB/RoCE; NDK's disconnect indication
     * carries no reason either).
     */
    private static void assertPeerOfAViolation(RdmaConnection peer) {
        assertThat(await(peer.disconnected())).isIn(DisconnectReason.PROTOCOL_ERROR,
                DisconnectReason.PEER_DISCONNECTED);
    }

    @Test
    void aSendWaitsForTheReceiveThePeerPostsLater() throws Exception {
        assumeTrue(client.adapterInfo().sendWaitsForPeerReceive(),
                client.adapterInfo().deviceName() + " terminates a connection whose peer has no receive posted");
        RdmaListener listener = listen();
        Pair pair = connectPair(listener);
        Pair other = connectPair(listener);
        assertOnePoller(client);
        assertOnePoller(server);
        MemoryRegion local = register(client, 128, ALL);
        MemoryRegion remote = register(server, 128, ALL);
        fill(local, 3);
        CompletableFuture<Completion> sent = pair.client().send(local.slice(0, 100), OperationFlags.NONE);
        // Barrier: the Send leaves the client's poller before this READ on the other connection, and the server's
        // poller answers the READ at the end of a poll that read every socket the Send could have reached first.
        await(other.client().read(local.slice(0, 0), remote.remote(), 0, OperationFlags.NONE));
        CompletableFuture<Completion> received = pair.server().receive(remote.slice(0, 128));
        assertThat(await(received).bytes()).isEqualTo(100);
        await(sent);
        assertThat(checksum(remote, 0, 100)).isEqualTo(checksum(local, 0, 100));
    }

    @Test
    void sendWithInvalidateRevokesThePeersRegion() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 16, ALL);
        MemoryRegion target = register(server, 16, ALL);
        MemoryRegion rxBuffer = register(server, 16, ALL);
        if (!client.adapterInfo().isRemoteInvalidateSupported()) {
            awaitFailure(pair.client().sendAndInvalidate(local.slice(0, 8), target.token(), OperationFlags.NONE),
                    Status.NOT_SUPPORTED);
            assertThat(target.isValid()).isTrue();
            return;
        }
        assumeTrue(server.adapterInfo().isRegionInvalidateSupported(), server.adapterInfo().deviceName()
                + " revokes no region tokens (AdapterInfo.isRegionInvalidateSupported); its windows have their suite");
        CompletableFuture<Completion> rx = pair.server().receive(rxBuffer.slice(0, 16));
        await(pair.client().sendAndInvalidate(local.slice(0, 8), target.token(), OperationFlags.NONE));
        assertThat(await(rx).invalidatedToken()).hasValue(target.token());
        assertThat(target.isValid()).isFalse();
    }

    // ------------------------------------------------------------------------------------------------- errors

    @Test
    void localMistakesFailAtOnceAndLeaveTheConnectionUp() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion readOnly = register(client, 64, Access.REMOTE_READ);
        MemoryRegion remote = register(server, 64, ALL);
        awaitFailure(pair.client().read(local.slice(0, 64), remote.remote(), 32, OperationFlags.NONE),
                Status.REMOTE_RESOURCES);
        assertStatus(Status.ACCESS_VIOLATION, () -> local.slice(60, 8));
        awaitFailure(pair.client().read(readOnly.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.ACCESS_VIOLATION);
        awaitFailure(pair.client().receive(readOnly.slice(0, 8)), Status.ACCESS_VIOLATION);
        assertStatus(Status.INVALID_PARAMETER, () -> local.slice(-1, 8));
        MemoryRegion gone = register(client, 64, ALL);
        gone.deregister();
        awaitFailure(pair.client().write(gone.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.ACCESS_VIOLATION);
        MemoryRegion foreign = register(server, 64, ALL);
        awaitFailure(pair.client().write(foreign.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.ACCESS_VIOLATION);
        await(pair.client().read(local.slice(0, 64), remote.remote(), 0, OperationFlags.NONE));
        assertThat(pair.client().isConnected()).isTrue();
    }

    @Test
    void anOperationsSlotIsFreeBeforeItsCallbackRunsAndBeforeItsFutureCompletes() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        int depth = pair.client().queueDepths().initiator();
        CompletableFuture<Integer> inCallback = new CompletableFuture<>();
        pair.client().read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE, new CompletionCallback() {
            @Override
            public void completed(long context, int bytes) {
                inCallback.complete(pair.client().availableInitiatorSlots());
            }

            @Override
            public void failed(long context, RdmaException error) {
                inCallback.completeExceptionally(error);
            }
        }, 0);
        assertThat(await(inCallback)).isEqualTo(depth);
        CompletableFuture<Integer> inStage = pair.client().read(local.slice(0, 8), remote.remote(), 0,
                OperationFlags.NONE)
                .thenApply(done -> pair.client().availableInitiatorSlots());
        assertThat(await(inStage)).isEqualTo(depth);
    }

    @Test
    void aNullArgumentThrowsNullPointerExceptionInEveryFormAndTheConnectionStaysUp() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        Recorder recorder = new Recorder(1);
        assertThatThrownBy(() -> pair.client().read(null, remote.remote(), 0, OperationFlags.NONE))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> pair.client().read(local.slice(0, 8), null, 0, OperationFlags.NONE))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> pair.client().read(local.slice(0, 8), remote.remote(), 0, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> pair.client().read(local.slice(0, 8), remote.remote(), 0, null, recorder, 1))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> pair.client().write(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE,
                null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> pair.client().send(null, OperationFlags.NONE, recorder, 1))
                .isInstanceOf(NullPointerException.class);
        pair.client().read(local.slice(0, 64), remote.remote(), 0, OperationFlags.NONE, recorder, 2);
        await(recorder.done);
        assertThat(recorder.reports).containsOnlyKeys(2L); // nothing was posted for the refused calls
        assertThat(pair.client().isConnected()).isTrue();
    }

    @Test
    void aReadWithATokenThePeerRefusesFailsAndTerminates() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion writeOnly = register(server, 64, Access.REMOTE_WRITE);
        awaitFailure(pair.client().read(local.slice(0, 64), writeOnly.remote(), 0, OperationFlags.NONE),
                Status.ACCESS_VIOLATION);
        assertThat(await(pair.client().disconnected())).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
        assertPeerOfAViolation(pair.server());
    }

    @Test
    void aRevokedOrForgedTokenNeverExposesAByte() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 256, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        RemoteBuffer token = remote.remote();
        remote.deregister();
        awaitFailure(pair.client().read(local.slice(0, 64), token, 0, OperationFlags.NONE), Status.ACCESS_VIOLATION);
        assertThat(checksum(local, 0, 256)).isEqualTo(checksum(register(client, 256, ALL), 0, 256));

        Pair second = connectPair(listen());
        MemoryRegion small = register(server, 64, ALL);
        RemoteBuffer forged = new RemoteBuffer(small.remote().address(), 256, small.token());
        // Verbs completions cannot tell a bounds violation from a bad key: both are IBV_WC_REM_ACCESS_ERR.
        assertThat(awaitAnyFailure(second.client().read(local.slice(0, 256), forged, 0, OperationFlags.NONE)).status())
                .isIn(Status.REMOTE_RESOURCES, Status.ACCESS_VIOLATION);
        assertPeerOfAViolation(second.server());
    }

    @Test
    void aWriteThePeerRefusesLeavesItsMemoryUntouchedAndTerminates() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        fill(local, 8);
        MemoryRegion readOnly = register(server, 64, Access.REMOTE_READ);
        long before = checksum(readOnly, 0, 64);
        pair.client().write(local.slice(0, 64), readOnly.remote(), 0, OperationFlags.NONE);
        CompletableFuture<Completion> after = pair.client().read(local.slice(0, 8), readOnly.remote(), 0,
                OperationFlags.NONE);
        assertPeerOfAViolation(pair.server());
        awaitFailure(after, Status.ACCESS_VIOLATION);
        assertThat(checksum(readOnly, 0, 64)).isEqualTo(before);
    }

    @Test
    void aSendLargerThanTheReceiveOverflowsAndTerminates() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 128, ALL);
        MemoryRegion remote = register(server, 128, ALL);
        CompletableFuture<Completion> rx = postedReceive(pair.server(), remote, 0, 16, local);
        pair.client().send(local.slice(0, 100), OperationFlags.NONE);
        awaitFailure(rx, Status.BUFFER_OVERFLOW);
        assertThat(remote.buffer().get(16)).isZero();
        assertPeerOfAViolation(pair.client());
    }

    /** Counts a callback's reports per context and keeps the first failure; completes when all arrived. */
    private static final class Recorder implements CompletionCallback {
        final ConcurrentHashMap<Long, Integer> reports = new ConcurrentHashMap<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final AtomicInteger remaining;
        volatile RdmaException error;
        volatile long failedContext = -1;

        Recorder(int expected) {
            remaining = new AtomicInteger(expected);
        }

        private void report(long context) {
            reports.merge(context, 1, Integer::sum);
            threads.add(Thread.currentThread().getName());
            if (remaining.decrementAndGet() == 0) {
                done.complete(null);
            }
        }

        @Override
        public void completed(long context, int bytes) {
            report(context);
        }

        @Override
        public void failed(long context, RdmaException e) {
            error = e;
            failedContext = context;
            report(context);
        }
    }

    @Test
    void callbacksReportEveryOperationOnceWithItsContextOffTheCallersThread() {
        Pair pair = connectPair(listen());
        int size = 4096;
        int total = 512;
        int window = 16;
        MemoryRegion remote = register(server, size * window, ALL);
        fill(remote, 5);
        MemoryRegion local = register(client, size * window, ALL);
        Recorder recorder = new Recorder(total);
        AtomicInteger issued = new AtomicInteger(window);
        // Each completion posts the next read into its slot from the callback: the recycling path.
        CompletionCallback chain = new CompletionCallback() {
            @Override
            public void completed(long context, int bytes) {
                int next = issued.getAndIncrement();
                if (next < total) {
                    int slot = next % window;
                    pair.client().read(local.slice(slot * size, size), remote.remote(), (long) slot * size,
                            OperationFlags.NONE, this, next);
                }
                recorder.completed(context, bytes);
            }

            @Override
            public void failed(long context, RdmaException error) {
                recorder.failed(context, error);
            }
        };
        for (int slot = 0; slot < window; slot++) {
            pair.client().read(local.slice(slot * size, size), remote.remote(), (long) slot * size, OperationFlags.NONE,
                    chain, slot);
        }
        await(recorder.done);
        assertThat(recorder.error).isNull();
        assertThat(recorder.reports).hasSize(total).allSatisfy((context, count) -> assertThat(count).isOne());
        assertThat(recorder.threads).doesNotContain(Thread.currentThread().getName());
        assertThat(checksum(local, 0, size * window)).isEqualTo(checksum(remote, 0, size * window));
        // Write and Send through callbacks too, with flags.
        OperationFlags fence = OperationFlags.READ_FENCE;
        Recorder more = new Recorder(3);
        pair.server().receive(remote.slice(0, size), more, 100);
        await(pair.server().read(remote.slice(0, 0), local.remote(), 0, OperationFlags.NONE)); // the receive is posted
        pair.client().write(local.slice(0, size), remote.remote(), size, fence, more, 101);
        pair.client().send(local.slice(0, size), OperationFlags.NONE, more, 102);
        await(more.done);
        assertThat(more.error).isNull();
        assertThat(more.reports).containsOnlyKeys(100L, 101L, 102L);
    }

    @Test
    void theCallbackFormReturnsItsRefusalAndNeverCallsBackForIt() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        Recorder recorder = new Recorder(1);
        MemoryRegion gone = register(client, 64, ALL);
        gone.deregister();
        assertThat(pair.client().read(gone, remote.remote(), 0, OperationFlags.NONE, recorder, 1))
                .isEqualTo(Status.ACCESS_VIOLATION);
        assertThat(pair.client().read(local, remote.remote(), 32, OperationFlags.NONE, recorder, 2))
                .isEqualTo(Status.REMOTE_RESOURCES);
        assertThat(pair.client().read(local, remote.remote(), 0, OperationFlags.NONE, recorder, 3))
                .isEqualTo(Status.SUCCESS);
        await(recorder.done);
        assertThat(recorder.reports).containsOnlyKeys(3L);
        await(pair.client().disconnect());
        assertThat(pair.client().read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE, recorder, 4))
                .isEqualTo(Status.CONNECTION_INVALID);
        assertThat(recorder.reports).containsOnlyKeys(3L);
    }

    @Test
    void aCallbackOperationOutstandingAtDisconnectFailsCanceled() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        Recorder recorder = new Recorder(1);
        pair.client().receive(local.slice(0, 64), recorder, 7);
        await(pair.client().read(local.slice(0, 0), remote.remote(), 0, OperationFlags.NONE)); // the receive is posted
        await(pair.client().disconnect());
        await(recorder.done);
        assertThat(recorder.failedContext).isEqualTo(7);
        assertThat(recorder.error.status()).isEqualTo(Status.CANCELED);
    }

    @Test
    void operationsOnADisconnectedConnectionAreInvalidAndOutstandingOnesAreCanceledOnBothSides() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 64, ALL);
        MemoryRegion remote = register(server, 64, ALL);
        CompletableFuture<Completion> clientRx = pair.client().receive(local.slice(0, 64));
        CompletableFuture<Completion> serverRx = pair.server().receive(remote.slice(0, 64));
        // Both receives are posted once an operation each side issued after them has completed.
        await(pair.client().read(local.slice(0, 0), remote.remote(), 0, OperationFlags.NONE));
        await(pair.server().read(remote.slice(0, 0), local.remote(), 0, OperationFlags.NONE));
        await(pair.client().disconnect());
        awaitFailure(clientRx, Status.CANCELED);
        awaitFailure(serverRx, Status.CANCELED);
        awaitFailure(pair.client().read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE),
                Status.CONNECTION_INVALID);
    }

    @Test
    void disconnectingInTheMiddleOfTrafficCompletesEveryFuture() {
        Pair pair = connectPair(listen());
        MemoryRegion local = register(client, 1 << 20, ALL);
        MemoryRegion remote = register(server, 1 << 20, ALL);
        List<CompletableFuture<Completion>> ops = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ops.add(i % 2 == 0 ? pair.client().write(local.slice(0, 1 << 20), remote.remote(), 0, OperationFlags.NONE)
                    : pair.client().read(local.slice(0, 1 << 20), remote.remote(), 0, OperationFlags.NONE));
        }
        pair.server().disconnect();
        for (CompletableFuture<Completion> op : ops) {
            op.handle((v, e) -> e == null || e.getCause() instanceof dev.rdmafutures.RdmaException r
                    && r.status() == Status.CANCELED ? "ok" : "unexpected " + e).thenAccept(result ->
                    assertThat(result).isEqualTo("ok"));
            awaitSettled(op);
        }
        assertThat(await(pair.client().disconnected())).isEqualTo(DisconnectReason.PEER_DISCONNECTED);
    }

    private static void awaitSettled(CompletableFuture<?> f) {
        await(f.handle((v, e) -> {
            if (e != null) {
                Throwable cause = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
                assertThat(cause).isInstanceOf(dev.rdmafutures.RdmaException.class);
                assertThat(((dev.rdmafutures.RdmaException) cause).status()).as("status of %s", cause.getMessage())
                        .isEqualTo(Status.CANCELED);
            }
            return null;
        }));
    }

    @Test
    void manyConnectionsAndThreadsKeepEveryByteIntact() throws Exception {
        RdmaListener listener = listen();
        int connections = 4;
        int size = 32 * 1024;
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            pairs.add(connectPair(listener));
        }
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Pair pair = pairs.get(t % connections);
            int seed = t;
            threads.add(new Thread(() -> {
                try {
                    MemoryRegion remote = register(server, size, ALL);
                    MemoryRegion local = register(client, size, ALL);
                    MemoryRegion back = register(client, size, ALL);
                    for (int round = 0; round < 25; round++) {
                        fill(local, seed * 1000L + round);
                        List<CompletableFuture<Completion>> window = new ArrayList<>();
                        for (int k = 0; k < 8; k++) {
                            window.add(pair.client().write(local.slice(k * 4096, 4096), remote.remote(), k * 4096,
                                    OperationFlags.NONE));
                        }
                        window.forEach(ConformanceSupport::await);
                        await(pair.client().read(back.slice(0, size), remote.remote(), 0, OperationFlags.NONE));
                        assertThat(checksum(back, 0, size)).isEqualTo(checksum(local, 0, size));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
    }
}
