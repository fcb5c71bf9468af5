package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Memory windows (NDK's {@code NdkCreateMw}, {@code NdkBind}, {@code NdkInvalidate}): a token of its own over part
 * of a region with narrower rights, reachable only through the connection it was bound on, revoked locally or by
 * the peer's Send with Invalidate, a new token on every bind. Where the adapter binds none, every call says
 * NOT_SUPPORTED.
 */
public abstract class AbstractMemoryWindowConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    private MemoryRegion register(RdmaRuntime runtime, int size, Access... access) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            buffer.put(i, (byte) (i * 7 + 3));
        }
        return closeLater(runtime.register(buffer, access));
    }

    private void requireWindows() {
        assumeTrue(server.adapterInfo().isMemoryWindowSupported(),
                "the adapter binds no memory windows (AdapterInfo.isMemoryWindowSupported)");
    }

    /**
     * A read by the peer that the window refuses: the read fails and, as iWARP and verbs do, the connection ends.
     */
    private static void assertRefused(CompletableFuture<Completion> access) {
        RdmaException error = awaitAnyFailure(access);
        assertThat(error.status()).isIn(Status.ACCESS_VIOLATION, Status.REMOTE_RESOURCES);
    }

    /**
     * A write through {@code remote} that the peer refuses. iWARP completes an RDMA Write once it is sent (soft, siw),
     * so there the refusal, a Terminate, fails the read posted behind it; IB/RoCE complete a write once it is
     * acknowledged, so there the write itself fails. Either way one of them fails with the refusal.
     */
    private static void assertWriteRefused(RdmaConnection writer, MemoryRegion source, RemoteBuffer remote,
                                           long offset, int length) {
        // One batch, so that the read is posted with the write: posted on its own, it could come after the
        // peer's Terminate had ended the connection and be refused for that (CONNECTION_INVALID) instead.
        List<CompletableFuture<Completion>> posted = writer.batch().write(source.slice(0, length), remote, offset,
                OperationFlags.NONE)
                .read(source.slice(0, 0), remote, 0, OperationFlags.NONE).post();
        CompletableFuture<Completion> write = posted.get(0);
        RdmaException behind = awaitAnyFailure(posted.get(1));
        Throwable own = await(write.handle((done, error) -> error));
        RdmaException refusal = own instanceof RdmaException e ? e : behind;
        assertThat(refusal.status()).isIn(Status.ACCESS_VIOLATION, Status.REMOTE_RESOURCES);
    }

    /**
     * Returns once the peer placed every write {@code writer} posted before: a read completes only after the writes
     * before it on its connection were placed. A write's own completion does not say so on iWARP (see
     * {@link #assertWriteRefused}).
     */
    private static void awaitPlaced(RdmaConnection writer, MemoryRegion sink, MemoryRegion readable) {
        await(writer.read(sink.slice(0, 0), readable.remote(), 0, OperationFlags.NONE));
    }

    /**
     * {@code reader} reads {@code length} bytes through {@code remote} into {@code sink}: they are
     * {@code source}'s from {@code sourceOffset}.
     */
    private static void assertReadsThrough(RdmaConnection reader, MemoryRegion sink, RemoteBuffer remote,
                                           MemoryRegion source, int sourceOffset, int length) {
        assertThat(await(reader.read(sink.slice(0, length), remote, 0, OperationFlags.NONE)).bytes()).isEqualTo(length);
        for (int i = 0; i < length; i++) {
            assertThat(sink.buffer().get(i)).as("byte %d", i).isEqualTo(source.buffer().get(sourceOffset + i));
        }
    }

    @Test
    void everyWindowCallSaysNotSupportedWhereTheAdapterHasNone() {
        assumeTrue(!server.adapterInfo().isMemoryWindowSupported(), "the adapter binds memory windows");
        assertStatus(Status.NOT_SUPPORTED, server::allocateMemoryWindow);
    }

    @Test
    void aWindowGivesItsOwnTokenOverPartOfARegionWithNarrowerRights() {
        requireWindows();
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        assertThat(window.isBound()).isFalse();
        assertStatus(Status.INVALID_DEVICE_STATE, window::remote);
        RemoteBuffer remote = await(pair.server().bind(window, region, 1000, 500, Access.REMOTE_READ));
        assertThat(window.isBound()).isTrue();
        assertThat(remote.length()).isEqualTo(500);
        assertThat(remote.token()).isEqualTo(window.token()).isNotEqualTo(region.token());
        assertThat(window.remote()).isEqualTo(remote);
        MemoryRegion sink = register(client, 500, ALL);
        assertReadsThrough(pair.client(), sink, remote, region, 1000, 500);
        // The window's rights are narrower than the region's: a write through it is refused.
        assertWriteRefused(pair.client(), sink, remote, 0, 8);
        assertThat(region.buffer().get(1000)).isEqualTo((byte) (1000 * 7 + 3));
    }

    @Test
    void bytesBeyondTheBoundSpanAreRefused() {
        requireWindows();
        assumeTrue(server.adapterInfo().isMemoryWindowSpanEnforced(), server.adapterInfo().deviceName()
                + " checks an access through a window against its region, not the bound span "
                + "(AdapterInfo.isMemoryWindowSpanEnforced)");
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(pair.server().bind(window, region, 64, 128, Access.REMOTE_READ,
                Access.REMOTE_WRITE));
        MemoryRegion sink = register(client, 256, ALL);
        RemoteBuffer claimed = new RemoteBuffer(remote.address(), 4096, remote.token());
        assertRefused(pair.client().read(sink.slice(0, 16), claimed, 120, OperationFlags.NONE));
    }

    @Test
    void invalidatingRevokesTheTokenAndABindAgainGivesANewOne() {
        requireWindows();
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer first = await(pair.server().bind(window, region, 0, 256, Access.REMOTE_WRITE));
        MemoryRegion source = register(client, 256, ALL);
        for (int i = 0; i < 256; i++) {
            source.buffer().put(i, (byte) (i ^ 0x5A)); // unlike the region's bytes at either binding's span
        }
        await(pair.client().write(source.slice(0, 256), first, 0, OperationFlags.NONE));
        awaitPlaced(pair.client(), source, region);
        await(pair.server().invalidate(window));
        assertThat(window.isBound()).isFalse();
        assertStatus(Status.INVALID_DEVICE_STATE, window::remote);
        RemoteBuffer second = await(pair.server().bind(window, region, 256, 256, Access.REMOTE_WRITE));
        assertThat(second.token()).isNotEqualTo(first.token());
        await(pair.client().write(source.slice(0, 256), second, 0, OperationFlags.NONE));
        awaitPlaced(pair.client(), source, region);
        for (int i = 0; i < 256; i++) {
            assertThat(region.buffer().get(i)).isEqualTo(source.buffer().get(i));
            assertThat(region.buffer().get(256 + i)).isEqualTo(source.buffer().get(i));
        }
        assertThat(region.buffer().get(512)).isEqualTo((byte) (512 * 7 + 3));
        assertWriteRefused(pair.client(), source, first, 0, 16);
    }

    @Test
    void eachBindsFutureGivesTheTokenOfThatBind() {
        requireWindows();
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryRegion sink = register(server, 4096, ALL);
        MemoryRegion peers = register(client, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        // Posted back to back behind a READ: the binds may take effect before the READ reports, in order.
        CompletableFuture<Completion> read = pair.server().read(sink.slice(0, 4096), peers.remote(), 0,
                OperationFlags.NONE);
        CompletableFuture<RemoteBuffer> first = pair.server().bind(window, region, 0, 64, Access.REMOTE_READ);
        CompletableFuture<Void> invalidated = pair.server().invalidate(window);
        CompletableFuture<RemoteBuffer> second = pair.server().bind(window, region, 64, 64, Access.REMOTE_READ);
        await(read);
        await(invalidated);
        assertThat(await(first).token()).isNotEqualTo(await(second).token());
        assertThat(await(second).token()).isEqualTo(window.token());
        assertThat(window.remote()).isEqualTo(await(second));
    }

    @Test
    void thePeersSendWithInvalidateRevokesTheWindow() {
        requireWindows();
        assumeTrue(client.adapterInfo().isRemoteInvalidateSupported(),
                "the adapter sends no Send with Invalidate (AdapterInfo.isRemoteInvalidateSupported)");
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(pair.server().bind(window, region, 0, 64, Access.REMOTE_READ));
        MemoryRegion inbox = register(server, 64, ALL);
        CompletableFuture<Completion> received = pair.server().receive(inbox.slice(0, 64));
        MemoryRegion message = register(client, 16, ALL);
        awaitPosted(pair.server(), inbox, message);
        await(pair.client().sendAndInvalidate(message.slice(0, 16), remote.token(), OperationFlags.NONE));
        Completion done = await(received);
        assertThat(done.invalidatedToken()).hasValue(remote.token());
        assertThat(window.isBound()).isFalse();
        assertThat(region.isValid()).isTrue();
        assertRefused(pair.client().read(message.slice(0, 16), remote, 0, OperationFlags.NONE));
    }

    @Test
    void aWindowIsReachableOnlyThroughTheConnectionItWasBoundOn() {
        requireWindows();
        Pair bound = connectPair(listen());
        Pair other = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(bound.server().bind(window, region, 0, 64, Access.REMOTE_READ));
        MemoryRegion sink = register(client, 64, ALL);
        await(bound.client().read(sink.slice(0, 64), remote, 0, OperationFlags.NONE));
        assertRefused(other.client().read(sink.slice(0, 64), remote, 0, OperationFlags.NONE));
    }

    @Test
    void aRegionsEndRevokesTheWindowsOverItAndTheWindowBindsAgain() {
        requireWindows();
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        RemoteBuffer remote = await(pair.server().bind(window, region, 0, 64, Access.REMOTE_READ));
        region.deregister();
        assertThat(region.isValid()).isFalse();
        assertThat(window.isBound()).isFalse();
        MemoryRegion sink = register(client, 64, ALL);
        assertRefused(pair.client().read(sink.slice(0, 64), remote, 0, OperationFlags.NONE));
        // The refusal ended that connection: the window binds again, over another region, on a new one.
        Pair again = connectPair(listen());
        MemoryRegion other = register(server, 4096, ALL);
        RemoteBuffer rebound = await(again.server().bind(window, other, 128, 64, Access.REMOTE_READ));
        assertReadsThrough(again.client(), sink, rebound, other, 128, 64);
    }

    @Test
    void aWindowWhoseConnectionEndedIsUnboundAndBindsAgainOnAnother() {
        requireWindows();
        MemoryRegion region = register(server, 4096, ALL);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        Pair first = connectPair(listen());
        RemoteBuffer old = await(first.server().bind(window, region, 0, 64, Access.REMOTE_READ));
        await(first.client().disconnect());
        await(first.server().disconnected());
        assertThat(window.isBound()).isFalse();
        Pair second = connectPair(listen());
        RemoteBuffer remote = await(second.server().bind(window, region, 64, 64, Access.REMOTE_READ));
        assertThat(remote.token()).isNotEqualTo(old.token());
        assertThat(window.isBound()).isTrue();
        assertReadsThrough(second.client(), register(client, 64, ALL), remote, region, 64, 64);
    }

    @Test
    void badBindsAreRefusedAtOnceWithNothingPosted() {
        requireWindows();
        Pair pair = connectPair(listen());
        MemoryRegion region = register(server, 4096, ALL);
        MemoryRegion readOnly = register(server, 4096, Access.REMOTE_READ);
        MemoryWindow window = closeLater(server.allocateMemoryWindow());
        int slots = pair.server().availableInitiatorSlots();
        awaitFailure(pair.server().bind(window, region, 0, 64), Status.INVALID_PARAMETER);
        awaitFailure(pair.server().bind(window, region, 0, 64, Access.LOCAL_WRITE), Status.INVALID_PARAMETER);
        awaitFailure(pair.server().bind(window, readOnly, 0, 64, Access.REMOTE_WRITE), Status.ACCESS_VIOLATION);
        awaitFailure(pair.server().bind(window, region, 4000, 200, Access.REMOTE_READ), Status.ACCESS_VIOLATION);
        MemoryWindow foreign = closeLater(client.adapterInfo().isMemoryWindowSupported()
                ? client.allocateMemoryWindow() : server.allocateMemoryWindow());
        if (client.adapterInfo().isMemoryWindowSupported()) {
            awaitFailure(pair.server().bind(foreign, region, 0, 64, Access.REMOTE_READ), Status.INVALID_PARAMETER);
        }
        MemoryWindow closed = server.allocateMemoryWindow();
        closed.close();
        awaitFailure(pair.server().bind(closed, region, 0, 64, Access.REMOTE_READ), Status.INVALID_DEVICE_STATE);
        assertThat(pair.server().availableInitiatorSlots()).isEqualTo(slots);
        assertThat(await(pair.server().bind(window, region, 0, 64, Access.REMOTE_READ)).length()).isEqualTo(64);
    }
}
