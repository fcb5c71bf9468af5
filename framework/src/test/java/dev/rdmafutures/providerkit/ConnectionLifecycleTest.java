package dev.rdmafutures.providerkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.ConnectionData;
import dev.rdmafutures.DisconnectReason;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.ReadLimits;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.EstablishEvents;
import dev.rdmafutures.spi.ProviderConnection;
import dev.rdmafutures.spi.SharedAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The phases every provider connection shares, and the exactly-once reports a provider relies on. */
class ConnectionLifecycleTest {
    private final List<String> reports = new ArrayList<>();
    private final EstablishEvents establish = new EstablishEvents() {
        @Override
        public void onEstablished(ProviderConnection connection, ConnectionData data) {
            reports.add("established");
        }

        @Override
        public void onFailed(RdmaException error) {
            reports.add("failed " + error.status());
        }
    };
    private final ConnectionEvents connection = reason -> reports.add("ended " + reason);
    private final ConnectionData data = new ConnectionData(new ReadLimits(1, 1), new byte[0]);

    @Test
    void establishmentIsReportedOnceAndTheEndOnce() {
        ConnectionLifecycle lifecycle = new ConnectionLifecycle(establish, connection);
        assertThat(lifecycle.isEstablishing()).isTrue();
        assertThat(lifecycle.established(null, data)).isTrue();
        assertThat(lifecycle.established(null, data)).isFalse();
        assertThat(lifecycle.failed(new RdmaException(Status.CANCELED, "late"))).isFalse();
        assertThat(lifecycle.isEstablished()).isTrue();
        assertThat(lifecycle.disconnecting()).isTrue();
        assertThat(lifecycle.isEstablished()).as("no posts while disconnecting").isFalse();
        assertThat(lifecycle.ended(DisconnectReason.LOCAL_DISCONNECT)).isTrue();
        assertThat(lifecycle.ended(DisconnectReason.PEER_DISCONNECTED)).isFalse();
        assertThat(lifecycle.isClosed()).isTrue();
        assertThat(reports).containsExactly("established", "ended LOCAL_DISCONNECT");
    }

    @Test
    void aPendingConnectionFailsOnceAndNeverEnds() {
        ConnectionLifecycle lifecycle = new ConnectionLifecycle(establish, connection);
        assertThat(lifecycle.accepted()).isTrue();
        assertThat(lifecycle.phase()).isEqualTo(ConnectionLifecycle.Phase.PENDING);
        assertThat(lifecycle.accepted()).isFalse();
        assertThat(lifecycle.failed(new RdmaException(Status.IO_TIMEOUT, "expired"))).isTrue();
        assertThat(lifecycle.failed(new RdmaException(Status.CANCELED, "again"))).isFalse();
        assertThat(lifecycle.ended(DisconnectReason.PEER_DISCONNECTED)).isFalse();
        assertThat(lifecycle.established(null, data)).isFalse();
        assertThat(reports).containsExactly("failed IO_TIMEOUT");
    }

    @Test
    void thePassiveSideReportsOnlyOnceItsListenersAreWired() {
        ConnectionLifecycle lifecycle = new ConnectionLifecycle();
        lifecycle.report(establish, connection);
        assertThat(lifecycle.established(null, data)).isTrue();
        assertThat(lifecycle.ended(DisconnectReason.CONNECTION_RESET)).isTrue();
        assertThat(reports).containsExactly("established", "ended CONNECTION_RESET");

        ConnectionLifecycle unanswered = new ConnectionLifecycle();
        unanswered.close();
        assertThat(unanswered.isClosed()).isTrue();
        assertThat(unanswered.established(null, data)).isFalse();
    }

    @Test
    void aSharedPortIsHeldUntilItsReservationCloses() {
        SharedPorts ports = new SharedPorts();
        InetSocketAddress bound = new InetSocketAddress("127.0.0.1", 40000);
        List<String> released = new ArrayList<>();
        SharedAddress reservation = ports.hold(bound, () -> released.add("anchor"));
        assertThat(ports.overlaps(new InetSocketAddress("0.0.0.0", 40000))).isTrue();
        assertThat(ports.overlaps(new InetSocketAddress("127.0.0.1", 40001))).isFalse();
        reservation.close();
        reservation.close();
        assertThat(released).containsExactly("anchor");
        assertThat(ports.overlaps(bound)).isFalse();
    }
}
