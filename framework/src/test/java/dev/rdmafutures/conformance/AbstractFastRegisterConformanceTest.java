package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.FastRegion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Fast registration (NDK's {@code NdkCreateMr} for fast registration, {@code NdkFastRegister},
 * {@code NdkInvalidate}): a slot filled through a connection's initiator queue with a registration that is a region like any other, locally and for the
 * peer, with a new token each time; revoked locally, by the next registration, by a READ with
 * RDMA_READ_LOCAL_INVALIDATE whose first segment it is, or by the peer's Send with Invalidate. Where the adapter has
 * none, every call says NOT_SUPPORTED.
 */
public abstract class AbstractFastRegisterConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    private void requireFastRegister() {
        assumeTrue(server.adapterInfo().isFastRegisterSupported(),
                "the adapter has no fast registration (AdapterInfo.isFastRegisterSupported)");
    }

    private static ByteBuffer filled(int size, int seed) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            buffer.put(i, (byte) (i * 31 + seed));
        }
        return buffer;
    }

    private MemoryRegion register(RdmaRuntime runtime, int size) {
        return closeLater(runtime.register(ByteBuffer.allocateDirect(size), ALL));
    }

    /** A read through {@code remote} that the peer refuses: the read fails and, as iWARP and verbs do, the end. */
    private static void assertRefused(CompletableFuture<Completion> access) {
        RdmaException error = awaitAnyFailure(access);
        assertThat(error.status()).isIn(Status.ACCESS_VIOLATION, Status.REMOTE_RESOURCES);
    }

    @Test
    void everyFastRegisterCallSaysNotSupportedWhereTheAdapterHasNone() {
        assumeTrue(!server.adapterInfo().isFastRegisterSupported(), "the adapter has fast registration");
        assertStatus(Status.NOT_SUPPORTED, server::allocateFastRegion);
    }

    @Test
    void aRegistrationIsARegionForThePeerAndLocallyWithANewTokenEachTime() {
        requireFastRegister();
        Pair pair = connectPair(listen());
        FastRegion slot = closeLater(server.allocateFastRegion());
        assertThat(slot.isRegistered()).isFalse();
        ByteBuffer first = filled(4096, 1);
        MemoryRegion region = await(pair.server().fastRegister(slot, first, ALL));
        assertThat(slot.isRegistered()).isTrue();
        assertThat(region.isValid()).isTrue();
        assertThat(region.length()).isEqualTo(4096);
        // The peer reads it and writes into it.
        MemoryRegion sink = register(client, 4096);
        assertThat(await(pair.client().read(sink.slice(0, 200), region.remote(), 100,
                OperationFlags.NONE)).bytes()).isEqualTo(200);
        for (int i = 0; i < 200; i++) {
            assertThat(sink.buffer().get(i)).isEqualTo(first.get(100 + i));
        }
        MemoryRegion source = closeLater(client.register(filled(64, 9), ALL));
        await(pair.client().write(source.slice(0, 64), region.remote(), 1000, OperationFlags.NONE));
        await(pair.client().read(sink.slice(0, 0), region.remote(), 0,
                OperationFlags.NONE)); // placed once a later read completes
        for (int i = 0; i < 64; i++) {
            assertThat(first.get(1000 + i)).isEqualTo(source.buffer().get(i));
        }
        // Locally: the sink of this side's own read.
        MemoryRegion peers = closeLater(client.register(filled(128, 5), ALL));
        await(pair.server().read(region.slice(2000, 128), peers.remote(), 0, OperationFlags.NONE));
        for (int i = 0; i < 128; i++) {
            assertThat(first.get(2000 + i)).isEqualTo(peers.buffer().get(i));
        }
        // The next registration revokes this one and has a new token.
        MemoryRegion second = await(pair.server().fastRegister(slot, filled(512, 7), Access.REMOTE_READ));
        assertThat(region.isValid()).isFalse();
        assertThat(second.token()).isNotEqualTo(region.token());
        assertThat(second.access()).containsExactly(Access.REMOTE_READ);
        assertThat(await(pair.client().read(sink.slice(0, 512), second.remote(), 0,
                OperationFlags.NONE)).bytes()).isEqualTo(512);
        assertRefused(pair.client().read(sink.slice(0, 16), region.remote(), 0, OperationFlags.NONE));
    }

    @Test
    void invalidatingTheSlotRevokesItsRegistrationAndTheSlotRegistersAgain() {
        requireFastRegister();
        Pair pair = connectPair(listen());
        FastRegion slot = closeLater(server.allocateFastRegion());
        MemoryRegion region = await(pair.server().fastRegister(slot, filled(256, 3), ALL));
        await(pair.server().invalidate(slot));
        assertThat(region.isValid()).isFalse();
        assertThat(slot.isRegistered()).isFalse();
        awaitFailure(pair.server().write(region.slice(0, 8), region.remote(), 0, OperationFlags.NONE),
                Status.ACCESS_VIOLATION);
        MemoryRegion again = await(pair.server().fastRegister(slot, filled(256, 4), ALL));
        assertThat(again.token()).isNotEqualTo(region.token());
        MemoryRegion sink = register(client, 256);
        assertThat(await(pair.client().read(sink.slice(0, 256), again.remote(), 0,
                OperationFlags.NONE)).bytes()).isEqualTo(256);
        assertRefused(pair.client().read(sink.slice(0, 16), region.remote(), 0, OperationFlags.NONE));
    }

    @Test
    void aReadWithLocalInvalidateRevokesTheRegistrationOfItsFirstSegment() {
        requireFastRegister();
        assumeTrue(client.adapterInfo().isReadLocalInvalidateSupported(),
                "the adapter ignores RDMA_READ_LOCAL_INVALIDATE (AdapterInfo.isReadLocalInvalidateSupported)");
        Pair pair = connectPair(listen());
        FastRegion slot = closeLater(client.allocateFastRegion());
        ByteBuffer landing = ByteBuffer.allocateDirect(64);
        MemoryRegion sink = await(pair.client().fastRegister(slot, landing, Access.LOCAL_WRITE));
        MemoryRegion other = register(client, 64);
        MemoryRegion source = closeLater(server.register(filled(128, 2), ALL));
        ScatterGatherList list = new ScatterGatherList(2).add(sink, 0, 64).add(other, 0, 64);
        await(pair.client().read(list, source.remote(), 0, OperationFlags.RDMA_READ_LOCAL_INVALIDATE));
        assertThat(landing.get(10)).isEqualTo(source.buffer().get(10));
        assertThat(sink.isValid()).isFalse();
        assertThat(slot.isRegistered()).isFalse();
        assertThat(other.isValid()).isTrue();
        assertThat(await(pair.client().fastRegister(slot, landing, Access.LOCAL_WRITE)).isValid()).isTrue();
    }

    @Test
    void thePeersSendWithInvalidateRevokesTheRegistration() {
        requireFastRegister();
        assumeTrue(client.adapterInfo().isRemoteInvalidateSupported(),
                "the adapter sends no Send with Invalidate (AdapterInfo.isRemoteInvalidateSupported)");
        Pair pair = connectPair(listen());
        FastRegion slot = closeLater(server.allocateFastRegion());
        MemoryRegion region = await(pair.server().fastRegister(slot, filled(64, 6), ALL));
        MemoryRegion inbox = register(server, 64);
        CompletableFuture<Completion> received = pair.server().receive(inbox.slice(0, 64));
        MemoryRegion message = register(client, 16);
        awaitPosted(pair.server(), inbox, message);
        await(pair.client().sendAndInvalidate(message.slice(0, 16), region.token(), OperationFlags.NONE));
        assertThat(await(received).invalidatedToken()).hasValue(region.token());
        assertThat(region.isValid()).isFalse();
        assertThat(slot.isRegistered()).isFalse();
        assertRefused(pair.client().read(message.slice(0, 16), region.remote(), 0, OperationFlags.NONE));
    }

    @Test
    void deregisteringTheRegionEndsOnlyThatRegistration() {
        requireFastRegister();
        Pair pair = connectPair(listen());
        FastRegion slot = closeLater(server.allocateFastRegion());
        MemoryRegion region = await(pair.server().fastRegister(slot, filled(64, 8), ALL));
        region.deregister();
        assertThat(slot.isRegistered()).isFalse();
        RemoteBuffer again = await(pair.server().fastRegister(slot, filled(64, 8), ALL)).remote();
        MemoryRegion sink = register(client, 64);
        assertThat(await(pair.client().read(sink.slice(0, 64), again, 0, OperationFlags.NONE)).bytes()).isEqualTo(64);
    }

    @Test
    void badRegistrationsAreRefusedAtOnceWithNothingPosted() {
        requireFastRegister();
        Pair pair = connectPair(listen());
        FastRegion slot = closeLater(server.allocateFastRegion());
        int slots = pair.server().availableInitiatorSlots();
        awaitFailure(pair.server().fastRegister(slot, ByteBuffer.allocateDirect(0), ALL), Status.INVALID_PARAMETER);
        awaitFailure(pair.server().fastRegister(slot, ByteBuffer.allocateDirect(8).asReadOnlyBuffer(),
                Access.REMOTE_WRITE), Status.INVALID_PARAMETER);
        FastRegion foreign = closeLater(client.allocateFastRegion());
        awaitFailure(pair.server().fastRegister(foreign, filled(8, 0), ALL), Status.INVALID_PARAMETER);
        awaitFailure(pair.server().invalidate(foreign), Status.INVALID_PARAMETER);
        FastRegion closed = server.allocateFastRegion();
        closed.close();
        awaitFailure(pair.server().fastRegister(closed, filled(8, 0), ALL), Status.INVALID_DEVICE_STATE);
        assertThat(pair.server().availableInitiatorSlots()).isEqualTo(slots);
        assertThat(await(pair.server().fastRegister(slot, filled(8, 0), ALL)).isValid()).isTrue();
    }

    @Test
    void closingTheSlotRevokesItsRegistration() {
        requireFastRegister();
        Pair pair = connectPair(listen());
        FastRegion slot = server.allocateFastRegion();
        MemoryRegion region = await(pair.server().fastRegister(slot, filled(64, 1), ALL));
        slot.close();
        assertThat(region.isValid()).isFalse();
        assertThat(slot.isRegistered()).isFalse();
        assertRefused(pair.client().read((register(client, 64)).slice(0, 64), region.remote(), 0, OperationFlags.NONE));
    }
}
