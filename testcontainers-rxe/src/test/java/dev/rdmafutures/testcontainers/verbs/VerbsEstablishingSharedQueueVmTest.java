package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PendingConnection;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.SharedReceive;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A shared receive that a connection takes before it is established, on siw0. An iWARP connect deferred with
 * {@code deferCompletion()} has its QP in RTS once the kernel's CM has the peer's answer, and the peer, established
 * already, may send before this side calls {@code complete()} or {@code reject()}: the receive it takes is reported
 * on the connection once {@code complete()} established it, and fails with {@link Status#CANCELED} when the
 * connection never is; it is never reported on a connection the caller was not handed, nor lost.
 */
@Tag("verbs-conformance")
@InRdmaVm(devices = "siw")
class VerbsEstablishingSharedQueueVmTest extends ConformanceSupport {
    private static final Access[] ALL = {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};

    private SharedReceiveQueue queue;
    private MemoryRegion receiveMemory;
    private CompletableFuture<SharedReceive> received;
    private PendingConnection pending;

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture("siw0");
    }

    @Test
    void aMessageTakenBeforeCompletionIsReportedOnTheConnectionCompletionEstablishes() {
        connectDeferredAndReceiveOneMessage();
        // The client's poller runs a whole connection's set-up and end after the Send's completion was in its CQ:
        // it has handed that completion over by then.
        barrierThroughANewConnection();
        assertThat(received).as("reported before the connection was established").isNotDone();

        RdmaConnection connection = closeLater(await(pending.complete()));
        SharedReceive receive = await(received);
        assertThat(receive.connection()).isSameAs(connection);
        assertThat(receive.bytes()).isEqualTo(12);
        assertThat(receiveMemory.buffer().getInt(8)).isEqualTo(7);
    }

    @Test
    void aMessageTakenBeforeARejectFailsItsReceive() {
        connectDeferredAndReceiveOneMessage();
        await(pending.reject());
        assertThat(awaitFailure(received, Status.CANCELED)).hasMessageContaining("never was");
    }

    /**
     * Posts one shared receive, connects to a server with {@code deferCompletion()}, and has the server send 12 bytes
     * and then read 4 bytes of the client's memory: the read's answer follows the client's handling of the Send, so
     * when it completes the Send's completion is in the client's CQ.
     */
    private void connectDeferredAndReceiveOneMessage() {
        assertThat(client.adapterInfo().passiveAcceptWaitsForCompleteConnect())
                .as("the server's side is established before the client completes (iWARP)").isFalse();
        queue = closeLater(client.sharedReceiveQueue(8, 1));
        receiveMemory = closeLater(client.register(ByteBuffer.allocateDirect(4096), ALL));
        received = queue.receive(receiveMemory.slice(0, 64)); // posted before the connect, by the same poller
        RdmaListener listener = listen();
        CompletableFuture<PendingConnection> connecting = client.connector().connect(listener.localAddress())
                .withSharedReceiveQueue(queue).deferCompletion().start();
        RdmaConnection accepted = closeLater(await(await(listener.next()).accept()));
        pending = await(connecting);

        MemoryRegion source = closeLater(server.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        source.buffer().putInt(0, 0xC0FFEE).putInt(4, 42).putInt(8, 7);
        await(accepted.send(source.slice(0, 12), OperationFlags.NONE));
        await(accepted.read(source.slice(16, 4), receiveMemory.remote(), 1024, OperationFlags.NONE));
    }
}
