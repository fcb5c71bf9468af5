package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Cross-provider interop on the wire: the verbs provider on Linux siw0 (kernel iWARP) against the soft provider
 * (iWARP in user space over TCP), in both roles, with private data and READ, WRITE and SEND both ways, and
 * scatter-gather lists: gathered SENDs into receives cut elsewhere, and READs scattered over several segments, both
 * ways (siw reads into one sink per Read Request, so the verbs side asks for each segment's range in turn; soft's
 * READ is one request whose response it scatters itself).
 */
@Tag("verbs-conformance")
@InRdmaVm(devices = "siw")
class VerbsSoftInteropVmTest {
    private static final int SIZE = 64 * 1024;
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    private static RdmaRuntime verbs() {
        return new VerbsFixture("siw0").runtimeBuilder().threadNamePrefix("verbs").build();
    }

    private static RdmaRuntime soft() {
        return RdmaRuntime.builder().provider("soft").threadNamePrefix("soft").build();
    }

    @Test
    void verbsConnectsToSoft() throws Exception {
        try (RdmaRuntime client = verbs(); RdmaRuntime server = soft()) {
            exchange(client, server);
        }
    }

    @Test
    void softConnectsToVerbs() throws Exception {
        try (RdmaRuntime client = soft(); RdmaRuntime server = verbs()) {
            exchange(client, server);
        }
    }

    @Test
    void scatterGatherSendsAndReadsBothWays() throws Exception {
        try (RdmaRuntime verbs = verbs(); RdmaRuntime soft = soft()) {
            RdmaListener listener = soft.listen(new InetSocketAddress(new VerbsFixture("siw0").deviceAddress(), 0));
            CompletableFuture<RdmaConnection> connecting = verbs.connector().connect(listener.localAddress())
                    .withMaxSge(4, 4).start();
            RdmaConnection s = await(await(listener.next()).withMaxSge(4, 4).accept());
            RdmaConnection v = await(connecting);
            assertThat(v.queueDepths().initiatorSge()).isEqualTo(4);
            scatterGather(v, verbs, s, soft, 1);
            scatterGather(s, soft, v, verbs, 2);
            await(v.disconnect());
            await(s.disconnected());
            listener.close();
        }
    }

    /**
     * {@code from} SENDs three segments of two regions into a receive of {@code to} cut into four elsewhere, then
     * READs a range of {@code to}'s memory into three segments; every byte is checked.
     */
    private static void scatterGather(RdmaConnection from, RdmaRuntime fromRuntime, RdmaConnection to,
                                      RdmaRuntime toRuntime, int seed) throws Exception {
        MemoryRegion a = fromRuntime.register(ByteBuffer.allocateDirect(SIZE), ALL);
        MemoryRegion b = fromRuntime.register(ByteBuffer.allocateDirect(SIZE), ALL);
        MemoryRegion peer = toRuntime.register(ByteBuffer.allocateDirect(SIZE), ALL);
        MemoryRegion landing = toRuntime.register(ByteBuffer.allocateDirect(SIZE), ALL);
        fill(a, seed);
        fill(b, seed + 7);
        fill(peer, seed + 13);
        ScatterGatherList sent = new ScatterGatherList(3).add(a, 3, 1000).add(b, 17, 20000).add(a, 5000, 2999);
        ScatterGatherList receiving = new ScatterGatherList(4).add(landing, 1, 7).add(landing, 100, 9000)
                .add(landing, 20000, 14000).add(landing, 40000, 10000);
        CompletableFuture<Completion> received = to.receive(receiving);
        // Once this returns the receive is posted: siw terminates a Send without one.
        await(to.read(landing.slice(0, 0), a.remote(), 0, OperationFlags.NONE));
        await(from.send(sent, OperationFlags.NONE));
        assertThat(await(received).bytes()).isEqualTo(sent.totalLength());
        assertThat(Arrays.copyOf(gather(receiving), sent.totalLength())).isEqualTo(gather(sent));

        ScatterGatherList sinks = new ScatterGatherList(3).add(b, 1, 333).add(a, 30000, 25000).add(b, 40000, 5);
        assertThat(await(from.read(sinks, peer.remote(), 11, OperationFlags.NONE)).bytes())
                .isEqualTo(sinks.totalLength());
        byte[] expected = new byte[sinks.totalLength()];
        peer.buffer().get(11, expected);
        assertThat(gather(sinks)).isEqualTo(expected);
        for (MemoryRegion r : new MemoryRegion[] {a, b, peer, landing}) {
            r.close();
        }
    }

    private static byte[] gather(ScatterGatherList list) {
        byte[] bytes = new byte[list.totalLength()];
        for (int i = 0, at = 0; i < list.size(); at += list.length(i), i++) {
            list.region(i).buffer().get(list.offset(i), bytes, at, list.length(i));
        }
        return bytes;
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(20, TimeUnit.SECONDS);
    }

    private static void exchange(RdmaRuntime client, RdmaRuntime server) throws Exception {
        RdmaListener listener = server.listen(new InetSocketAddress(new VerbsFixture("siw0").deviceAddress(), 0));
        CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                .withReadLimits(4, 4).withPrivateData(bytes("hello from " + client.adapterInfo().providerName()))
                .start();
        ConnectionRequest request = await(listener.next());
        assertThat(new String(request.privateData(), StandardCharsets.UTF_8))
                .startsWith("hello from " + client.adapterInfo().providerName());
        RdmaConnection s = await(request.withPrivateData(bytes("welcome")).accept());
        RdmaConnection c = await(connecting);
        assertThat(new String(c.connectionData().peerPrivateData(), StandardCharsets.UTF_8)).startsWith("welcome");

        MemoryRegion clientMem = client.register(ByteBuffer.allocateDirect(SIZE), ALL);
        MemoryRegion serverMem = server.register(ByteBuffer.allocateDirect(SIZE), ALL);
        fill(serverMem, 5);
        fill(clientMem, 9);
        RemoteBuffer serverToken = RemoteBuffer.decode(serverMem.remote().encode());
        RemoteBuffer clientToken = RemoteBuffer.decode(clientMem.remote().encode());

        MemoryRegion landing = client.register(ByteBuffer.allocateDirect(SIZE), ALL);
        await(c.read(landing.slice(0, SIZE), serverToken, 0, OperationFlags.NONE));
        assertThat(landing.buffer()).isEqualTo(serverMem.buffer());

        MemoryRegion serverLanding = server.register(ByteBuffer.allocateDirect(SIZE), ALL);
        await(s.read(serverLanding.slice(0, SIZE), clientToken, 0, OperationFlags.NONE));
        assertThat(serverLanding.buffer()).isEqualTo(clientMem.buffer());

        await(c.write(clientMem.slice(0, SIZE), serverToken, 0, OperationFlags.NONE));
        // A read after a write returns once the write landed.
        await(c.read(landing.slice(0, 8), serverToken, 0, OperationFlags.NONE));
        assertThat(serverMem.buffer()).isEqualTo(clientMem.buffer());

        CompletableFuture<Completion> received = s.receive(serverLanding.slice(0, SIZE));
        CompletableFuture<Completion> back = c.receive(landing.slice(0, SIZE));
        await(c.send(clientMem.slice(0, 1000), OperationFlags.NONE));
        assertThat(await(received).bytes()).isEqualTo(1000);
        await(s.send(serverMem.slice(0, 2000), OperationFlags.NONE));
        assertThat(await(back).bytes()).isEqualTo(2000);

        await(c.disconnect());
        await(s.disconnected());
        listener.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void fill(MemoryRegion region, int seed) {
        ByteBuffer b = region.buffer();
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) (i * seed + seed));
        }
    }
}
