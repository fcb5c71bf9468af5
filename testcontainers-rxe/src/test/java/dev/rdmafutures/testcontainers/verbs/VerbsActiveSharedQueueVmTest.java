package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.SharedReceive;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The connecting side's shared receive queue on rxe0, which the conformance suite (accepting sides) leaves out: a
 * one-phase connect creates its QP on the CM id with the queue, a two-phase connect beside it (detached, the connect
 * carrying the SRQ flag); either way the peer's Sends land in the queue's segments and report the connection.
 */
@Tag("verbs-conformance")
@InRdmaVm(devices = "rxe")
class VerbsActiveSharedQueueVmTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture("rxe0");
    }

    @Test
    void aOnePhaseConnectTakesItsReceivesFromTheQueue() {
        SharedReceiveQueue queue = closeLater(client.sharedReceiveQueue(8, 2));
        MemoryRegion memory = closeLater(client.register(ByteBuffer.allocateDirect(4096), ALL));
        CompletableFuture<SharedReceive> received = queue.receive(new ScatterGatherList(2).add(memory, 0, 4)
                .add(memory, 100, 100));
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> connecting = client.connector().connect(listener.localAddress())
                .withSharedReceiveQueue(queue).start();
        RdmaConnection accepted = closeLater(await(await(listener.next()).accept()));
        RdmaConnection connected = closeLater(await(connecting));
        sendAndCheck(accepted, connected, received, memory);
    }

    @Test
    void aTwoPhaseConnectTakesItsReceivesFromTheQueue() {
        SharedReceiveQueue queue = closeLater(client.sharedReceiveQueue(8, 2));
        MemoryRegion memory = closeLater(client.register(ByteBuffer.allocateDirect(4096), ALL));
        CompletableFuture<SharedReceive> received = queue.receive(new ScatterGatherList(2).add(memory, 0, 4)
                .add(memory, 100, 100));
        RdmaListener listener = listen();
        CompletableFuture<PendingConnection> pending = client.connector().connect(listener.localAddress())
                .withSharedReceiveQueue(queue).deferCompletion().start();
        CompletableFuture<RdmaConnection> accepting = await(listener.next()).accept();
        RdmaConnection connected = closeLater(await(await(pending).complete()));
        RdmaConnection accepted = closeLater(await(accepting));
        sendAndCheck(accepted, connected, received, memory);
    }

    private void sendAndCheck(RdmaConnection sender, RdmaConnection receiver,
                              CompletableFuture<SharedReceive> received, MemoryRegion memory) {
        MemoryRegion source = closeLater(server.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        source.buffer().putInt(0, 0xC0FFEE).putInt(4, 42).putInt(8, 7);
        await(sender.send(source.slice(0, 12), OperationFlags.NONE));
        SharedReceive receive = await(received);
        assertThat(receive.bytes()).isEqualTo(12);
        assertThat(receive.connection()).isSameAs(receiver);
        assertThat(memory.buffer().getInt(0)).isEqualTo(0xC0FFEE);
        assertThat(memory.buffer().getInt(100)).isEqualTo(42);
        assertThat(memory.buffer().getInt(104)).isEqualTo(7);
    }
}
