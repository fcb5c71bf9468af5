package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.SharedEndpoint;
import dev.rdmafutures.Status;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** NdkConnectWithSharedEndpoint semantics, as SharedEndpoint documents them, for any provider. */
public abstract class AbstractSharedEndpointConformanceTest extends ConformanceSupport {

    @Test
    void manyDestinationsShareOneLocalAddressAndPort() {
        SharedEndpoint shared = closeLater(client.sharedEndpoint(anyPort()));
        assertThat(shared.localAddress().getPort()).isPositive();
        for (int i = 0; i < 3; i++) {
            RdmaListener listener = listen();
            CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                    .from(shared).start();
            ConnectionRequest request = await(listener.next());
            assertThat(request.remoteAddress().getPort()).isEqualTo(shared.localAddress().getPort());
            closeLater(await(request.accept()));
            RdmaConnection connection = closeLater(await(c));
            assertThat(connection.localAddress()).isEqualTo(shared.localAddress());
        }
    }

    @Test
    void aSecondConnectionToTheSameDestinationAlreadyExists() {
        SharedEndpoint shared = closeLater(client.sharedEndpoint(anyPort()));
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> first = client.connector().connect(listener.localAddress())
                .from(shared).start();
        awaitFailure(client.connector().connect(listener.localAddress()).from(shared).start(),
                Status.ADDRESS_ALREADY_EXISTS);
        closeLater(await(await(listener.next()).accept()));
        closeLater(await(first));
        awaitFailure(client.connector().connect(listener.localAddress()).from(shared).start(),
                Status.ADDRESS_ALREADY_EXISTS);
    }

    @Test
    void aFailedConnectReleasesItsDestination() {
        SharedEndpoint shared = closeLater(client.sharedEndpoint(anyPort()));
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> first = client.connector().connect(listener.localAddress())
                .from(shared).start();
        await(await(listener.next()).reject(new byte[0]));
        awaitFailure(first, Status.CONNECTION_REFUSED);
        // The rejected attempt's 4-tuple may linger in TIME_WAIT on either side, so reconnect to a new listener
        // port on the same runtime: the endpoint itself must still be usable.
        RdmaListener next = listen();
        CompletableFuture<RdmaConnection> again = client.connector().connect(next.localAddress()).from(shared).start();
        closeLater(await(await(next.next()).accept()));
        closeLater(await(again));
    }

    @Test
    void aListenerMayNotTakeASharedEndpointsPort() {
        SharedEndpoint shared = closeLater(client.sharedEndpoint(anyPort()));
        assertStatus(Status.SHARING_VIOLATION, () -> client.listen(shared.localAddress()));
    }

    @Test
    void aClosedOrForeignSharedEndpointIsRefused() {
        RdmaListener listener = listen();
        SharedEndpoint shared = client.sharedEndpoint(anyPort());
        shared.close();
        awaitFailure(client.connector().connect(listener.localAddress()).from(shared).start(),
                Status.INVALID_DEVICE_STATE);
        SharedEndpoint foreign = closeLater(server.sharedEndpoint(anyPort()));
        assertStatus(Status.INVALID_PARAMETER, () -> client.connector().connect(listener.localAddress()).from(foreign));
    }

    @Test
    void aSharedEndpointsPortCannotBeSharedTwice() {
        SharedEndpoint shared = closeLater(client.sharedEndpoint(anyPort()));
        RdmaListener listener = listen();
        awaitFailure(client.connector().connect(listener.localAddress()).from(shared.localAddress()).start(),
                Status.SHARING_VIOLATION);
    }
}
