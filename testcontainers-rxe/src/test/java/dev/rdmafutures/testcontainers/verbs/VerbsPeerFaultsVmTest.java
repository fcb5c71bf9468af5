package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PeerFaultPolicy;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RemoteBuffer;
import dev.rdmafutures.Status;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ManualTicker;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.conformance.Waits;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On RoCE a peer's refused request counts against its address ({@code PeerFaultPolicy}, issue 27), a plain disconnect
 * does not, and neither does a token this side retired under the peer. rxe raises no event for the request it
 * refused, but leaves the refusing side's QP in the error state, which the connection reads when the peer's
 * DISCONNECTED arrives; a peer that merely disconnects leaves it able to send.
 */
@Tag("verbs-conformance") // bin/test-vm --verbs runs it with the conformance suites
@InRdmaVm(devices = "rxe")
class VerbsPeerFaultsVmTest extends ConformanceSupport {
    private static final int SIZE = 64;

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture("rxe0");
    }

    /**
     * Replaces the server with one whose policy starts an hour's back-off at the {@code maxFaults}th fault. Its clock
     * stands still, so that the policy's bucket does not drain between the faults (nothing here waits on a deadline
     * of the server's).
     */
    private RdmaListener guardedServer(int maxFaults) {
        server = closeLater(fixture().runtimeBuilder().threadNamePrefix("guarded-server").ticker(new ManualTicker())
                .peerFaultPolicy(PeerFaultPolicy.of(maxFaults, Duration.ofHours(1), Duration.ofHours(1),
                        Duration.ofHours(1))).build());
        return listen();
    }

    private MemoryRegion sink() {
        return closeLater(client.register(ByteBuffer.allocateDirect(SIZE), Access.LOCAL_WRITE));
    }

    private MemoryRegion served() {
        return closeLater(server.register(ByteBuffer.allocateDirect(SIZE), Access.REMOTE_READ));
    }

    @Test
    void aForgedTokenCountsAgainstThePeerAndAPlainDisconnectDoesNot() {
        RdmaListener listener = guardedServer(2);
        MemoryRegion served = served();
        MemoryRegion sink = sink();
        for (int i = 0; i < 3; i++) {
            Pair pair = connectPair(listener);
            if (i != 1) {
                await(pair.client().read(sink.slice(0, SIZE), served.remote(), 0, OperationFlags.NONE));
            }
            await(pair.client().disconnect());
            await(pair.server().disconnected());
        }
        assertThat(server.metrics().peerBackOffs()).as("back-offs after plain disconnects").isZero();

        RemoteBuffer real = served.remote();
        RemoteBuffer forged = new RemoteBuffer(real.address(), SIZE, real.token() ^ 0x5a5a00);
        for (int i = 0; i < 2; i++) {
            Pair pair = connectPair(listener);
            awaitFailure(pair.client().read(sink.slice(0, SIZE), forged, 0, OperationFlags.NONE),
                    Status.ACCESS_VIOLATION);
            await(pair.server().disconnected());
        }
        Waits.until("the second fault's back-off", WAIT, () -> server.metrics().peerBackOffs() == 1);
        awaitFailure(client.connector().connect(listener.localAddress()).start(), Status.CONNECTION_REFUSED);
        assertThat(server.metrics().peerRefusals()).isEqualTo(1);
    }

    @Test
    void aTokenThisSideRetiredUnderThePeerDoesNotCount() {
        RdmaListener listener = guardedServer(1);
        MemoryRegion sink = sink();
        for (int i = 0; i < 2; i++) {
            Pair pair = connectPair(listener);
            MemoryRegion served = server.register(ByteBuffer.allocateDirect(SIZE), Access.REMOTE_READ);
            RemoteBuffer handedOut = served.remote();
            await(pair.client().read(sink.slice(0, SIZE), handedOut, 0, OperationFlags.NONE));
            served.close(); // deregistered while the peer still holds its token
            awaitFailure(pair.client().read(sink.slice(0, SIZE), handedOut, 0, OperationFlags.NONE),
                    Status.ACCESS_VIOLATION);
            await(pair.server().disconnected()); // the fault, had it counted, was counted before this completed
            assertThat(server.metrics().peerBackOffs()).as("back-offs after a token retired here").isZero();
        }
        Pair welcome = connectPair(listener); // refused, were the address in a back-off
        await(welcome.client().disconnect());
        await(welcome.server().disconnected());
        assertThat(server.metrics().peerBackOffs()).isZero();
        assertThat(server.metrics().peerRefusals()).isZero();
    }
}
