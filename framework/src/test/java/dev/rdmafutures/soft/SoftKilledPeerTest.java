package dev.rdmafutures.soft;

import dev.rdmafutures.conformance.AbstractKilledPeerTest;
import dev.rdmafutures.conformance.ProviderFixture;
import java.time.Duration;
import java.util.List;

/** The peer process killed with 1,000 READs in flight, soft on loopback (bin/faults). */
class SoftKilledPeerTest extends AbstractKilledPeerTest {
    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    @Override
    protected String providerLabel() {
        return "soft";
    }

    @Override
    protected List<String> peerArguments() {
        return List.of("soft", fixture().deviceAddress().getHostAddress());
    }

    @Override
    protected Duration disconnectTimeout() {
        return SoftFixture.DISCONNECT_TIMEOUT;
    }
}
