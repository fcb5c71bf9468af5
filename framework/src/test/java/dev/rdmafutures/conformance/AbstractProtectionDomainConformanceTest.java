package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.MemoryWindow;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.ProtectionDomain;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Protection domains (NDK's {@code NdkCreatePd}): a peer whose connection is in one domain cannot read, write or
 * invalidate memory of another, whatever token it sends, and a connection posts only its own domain's regions,
 * windows and shared receive queue. Every token used here is real, not guessed: the refusals come from the domains
 * (on {@code soft} a token table per domain, on {@code verbs} the device's check of the rkey's PD against the QP's).
 */
public abstract class AbstractProtectionDomainConformanceTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
    private static final int SIZE = 256;
    private static final byte UNTOUCHED = 0x5a;

    private static ByteBuffer pattern(int seed) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        for (int i = 0; i < SIZE; i++) {
            buffer.put(i, (byte) (i * 31 + seed));
        }
        return buffer;
    }

    /** A connection from the client's default domain, accepted in whatever domain {@code onServer} picks. */
    private Pair connect(RdmaListener listener, UnaryOperator<ConnectionRequest> onServer) {
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        RdmaConnection s = await(onServer.apply(await(listener.next())).accept());
        return new Pair(closeLater(await(c)), closeLater(s));
    }

    /**
     * A read by the peer that the server refuses: it fails, as iWARP and verbs do the connection ends, and no byte
     * reached {@code sink}. soft and rxe report the refusal on the read itself; siw ends the connection on a PD
     * mismatch and flushes the read ({@link Status#CANCELED}) instead.
     */
    private static void assertReadRefused(RdmaConnection reader, MemoryRegion sink, RemoteBuffer from) {
        for (int i = 0; i < SIZE; i++) {
            sink.buffer().put(i, UNTOUCHED);
        }
        RdmaException error = awaitAnyFailure(reader.read(sink.slice(0, SIZE), from.slice(0, SIZE), 0,
                OperationFlags.NONE));
        assertThat(error.status()).as(error.getMessage()).isIn(Status.ACCESS_VIOLATION, Status.REMOTE_RESOURCES,
                Status.CANCELED);
        for (int i = 0; i < SIZE; i++) {
            assertThat(sink.buffer().get(i)).as("sink byte %d", i).isEqualTo(UNTOUCHED);
        }
    }

    private static void assertUnchanged(MemoryRegion region, int seed) {
        for (int i = 0; i < SIZE; i++) {
            assertThat(region.buffer().get(i)).as("byte %d", i).isEqualTo((byte) (i * 31 + seed));
        }
    }

    @Test
    void aPeerReachesOnlyTheRegionsOfItsConnectionsDomain() {
        ProtectionDomain tenant = closeLater(server.protectionDomain());
        MemoryRegion tenants = closeLater(tenant.register(pattern(1), ALL));
        MemoryRegion others = closeLater(server.register(pattern(2), ALL)); // the runtime's default domain
        MemoryRegion sink = closeLater(client.register(ByteBuffer.allocateDirect(SIZE), ALL));
        RdmaListener listener = listen();

        Pair inTenant = connect(listener, request -> request.inDomain(tenant));
        assertThat(await(inTenant.client().read(sink.slice(0, SIZE), tenants.remote(), 0, OperationFlags.NONE))
                .bytes()).isEqualTo(SIZE);
        assertThat(sink.buffer().get(7)).isEqualTo((byte) (7 * 31 + 1));
        assertReadRefused(inTenant.client(), sink, others.remote());

        Pair writer = connect(listener, request -> request.inDomain(tenant));
        // One batch: iWARP completes a write once sent, so there the read behind it carries the refusal (or, on siw,
        // is flushed); IB/RoCE fail the write itself.
        List<CompletableFuture<Completion>> posted = writer.client().batch()
                .write(sink.slice(0, 8), others.remote(), 0, OperationFlags.NONE)
                .read(sink.slice(0, 0), tenants.remote(), 0, OperationFlags.NONE).post();
        RdmaException behind = awaitAnyFailure(posted.get(1));
        Throwable own = await(posted.get(0).handle((done, error) -> error));
        RdmaException refusal = own instanceof RdmaException e ? e : behind;
        assertThat(refusal.status()).as(refusal.getMessage()).isIn(Status.ACCESS_VIOLATION, Status.REMOTE_RESOURCES,
                Status.CANCELED);
        assertUnchanged(others, 2);

        Pair inDefault = connect(listener, UnaryOperator.identity());
        assertReadRefused(inDefault.client(), sink, tenants.remote());
        assertUnchanged(tenants, 1);
    }

    @Test
    void aConnectionPostsOnlyItsOwnDomainsRegions() {
        ProtectionDomain tenant = closeLater(server.protectionDomain());
        MemoryRegion tenants = closeLater(tenant.register(pattern(1), ALL));
        MemoryRegion others = closeLater(server.register(pattern(2), ALL));
        Pair pair = connect(listen(), request -> request.inDomain(tenant));

        RdmaException refused = awaitFailure(pair.server().receive(others.slice(0, 8)), Status.ACCESS_VIOLATION);
        assertThat(refused.getMessage()).contains("ProtectionDomain");
        // The connection is still up and posts its own domain's regions.
        CompletableFuture<Completion> received = pair.server().receive(tenants.slice(0, 8));
        MemoryRegion message = closeLater(client.register(pattern(3), ALL));
        awaitPosted(pair.server(), tenants, message);
        await(pair.client().send(message.slice(0, 8), OperationFlags.NONE));
        assertThat(await(received).bytes()).isEqualTo(8);
    }

    @Test
    void windowsAndSharedReceiveQueuesServeOnlyTheirDomainsConnections() {
        ProtectionDomain tenant = closeLater(server.protectionDomain());
        MemoryRegion tenants = closeLater(tenant.register(pattern(1), ALL));
        MemoryRegion others = closeLater(server.register(pattern(2), ALL));
        RdmaListener listener = listen();
        Pair pair = connect(listener, request -> request.inDomain(tenant));
        if (server.adapterInfo().isMemoryWindowSupported()) {
            MemoryWindow othersWindow = closeLater(server.allocateMemoryWindow());
            awaitFailure(pair.server().bind(othersWindow, tenants, 0, 64, Access.REMOTE_READ), Status.ACCESS_VIOLATION);
            MemoryWindow tenantsWindow = closeLater(tenant.allocateMemoryWindow());
            awaitFailure(pair.server().bind(tenantsWindow, others, 0, 64, Access.REMOTE_READ),
                    Status.ACCESS_VIOLATION);
            RemoteBuffer bound = await(pair.server().bind(tenantsWindow, tenants, 64, 64, Access.REMOTE_READ));
            MemoryRegion sink = closeLater(client.register(ByteBuffer.allocateDirect(SIZE), ALL));
            assertThat(await(pair.client().read(sink.slice(0, 64), bound, 0, OperationFlags.NONE)).bytes())
                    .isEqualTo(64);
            assertThat(sink.buffer().get(0)).isEqualTo((byte) (64 * 31 + 1));
        }
        if (server.adapterInfo().maxSharedReceiveQueueDepth() > 0) {
            SharedReceiveQueue othersQueue = closeLater(server.sharedReceiveQueue(4, 1));
            CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
            ConnectionRequest request = await(listener.next()).inDomain(tenant).withSharedReceiveQueue(othersQueue);
            awaitFailure(request.accept(), Status.INVALID_PARAMETER);
            await(request.reject(new byte[0])); // refused before answering: the request can still be answered
            awaitFailure(c, Status.CONNECTION_REFUSED);
            awaitFailure(client.connector().connect(listener.localAddress())
                    .withSharedReceiveQueue(closeLater(client.sharedReceiveQueue(4, 1)))
                    .inDomain(closeLater(client.protectionDomain())).start(), Status.INVALID_PARAMETER);
        }
    }

    @Test
    void aPeerCannotInvalidateAnotherDomainsRegion() {
        assumeTrue(client.adapterInfo().isRemoteInvalidateSupported(), client.adapterInfo().deviceName()
                + " sends no Send with Invalidate (AdapterInfo.isRemoteInvalidateSupported)");
        ProtectionDomain tenant = closeLater(server.protectionDomain());
        MemoryRegion inbox = closeLater(tenant.register(ByteBuffer.allocateDirect(SIZE), ALL));
        MemoryRegion others = closeLater(server.register(pattern(2), ALL));
        Pair pair = connect(listen(), request -> request.inDomain(tenant));
        CompletableFuture<Completion> received = pair.server().receive(inbox.slice(0, 16));
        MemoryRegion message = closeLater(client.register(pattern(3), ALL));
        awaitPosted(pair.server(), inbox, message);
        pair.client().sendAndInvalidate(message.slice(0, 8), others.token(), OperationFlags.NONE);
        awaitAnyFailure(received);
        assertThat(others.isValid()).as("the other domain's region").isTrue();
    }

    @Test
    void aDomainClosesOnceNothingMadeInItIsOpen() {
        ProtectionDomain tenant = client.protectionDomain();
        MemoryRegion region = tenant.register(pattern(1), ALL);
        assertStatus(Status.INVALID_DEVICE_STATE, tenant::close);
        assertThat(tenant.isClosed()).isFalse();
        region.close();
        tenant.close();
        tenant.close();
        assertThat(tenant.isClosed()).isTrue();
        assertStatus(Status.INVALID_DEVICE_STATE, () -> tenant.register(pattern(1), ALL));
        assertStatus(Status.INVALID_DEVICE_STATE, () -> client.connector().connect(listen().localAddress())
                .inDomain(tenant));
    }

    @Test
    void domainsAreCheckedAsOtherArgumentsAre() {
        ProtectionDomain clients = closeLater(client.protectionDomain());
        ProtectionDomain servers = closeLater(server.protectionDomain());
        RdmaListener listener = listen();
        assertStatus(Status.INVALID_PARAMETER, () -> client.connector().connect(listener.localAddress())
                .inDomain(servers));
        // A connection of the client's own domain works as any other.
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).inDomain(clients)
                .start();
        await(await(listener.next()).accept());
        assertThat(await(c).isConnected()).isTrue();
    }
}
