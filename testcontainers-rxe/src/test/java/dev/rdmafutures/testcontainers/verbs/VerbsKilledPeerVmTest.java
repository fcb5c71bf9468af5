package dev.rdmafutures.testcontainers.verbs;

import dev.rdmafutures.conformance.AbstractKilledPeerTest;
import dev.rdmafutures.conformance.ProviderFixture;
import java.time.Duration;
import java.util.List;

/** {@link AbstractKilledPeerTest} on a verbs device of the VM; the peer JVM loads the same native library. */
abstract class VerbsKilledPeerVmTest extends AbstractKilledPeerTest {
    /** The device, {@code rxe0} or {@code siw0}. */
    abstract String device();

    @Override
    protected ProviderFixture fixture() {
        return new VerbsFixture(device());
    }

    @Override
    protected String providerLabel() {
        return "verbs (" + device() + ")";
    }

    @Override
    protected List<String> peerArguments() {
        return List.of("verbs", fixture().deviceAddress().getHostAddress(), device());
    }

    @Override
    protected List<String> peerJvmFlags() {
        return List.of("--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Djava.library.path=" + System.getProperty("java.library.path"));
    }

    @Override
    protected Duration disconnectTimeout() {
        return VerbsFixture.DISCONNECT_TIMEOUT;
    }
}
