package dev.rdmafutures.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;

/**
 * The Testcontainers module's end-to-end check, wherever Docker and an rxe device meet (inside the VM, or on a host
 * with {@code rdma_rxe}): an {@link RxeContainer} whose port turns ACTIVE, a framework peer in it, and this JVM,
 * outside the container, RDMA-reading the peer's memory.
 */
final class RxeContainerScenario {
    private RxeContainerScenario() {
    }

    /** Skips, with the exact reason, where Docker or the device is missing. */
    static void assumeDockerAndDevice(String device) throws Exception {
        assumeTrue(DockerClientFactory.instance().isDockerAvailable(),
                "skipped: no Docker engine reachable (Testcontainers found no DOCKER_HOST or /var/run/docker.sock)");
        assumeTrue(new RdmaDevices().ports().stream().anyMatch(port -> port.device().equals(device)),
                "skipped: no " + device + " here (load rdma_rxe and 'rdma link add " + device + " type rxe netdev"
                        + " <interface>')");
    }

    /** The IPv4 address of the network device {@code device} is bound to. */
    static InetAddress deviceAddress(String netdev) throws Exception {
        return NetworkInterface.getByName(netdev).inetAddresses().filter(a -> a.getAddress().length == 4)
                .findFirst().orElseThrow();
    }

    static void readFromAPeerInAContainer(String device, InetAddress address) throws Exception {
        try (RxeContainer container = new RxeContainer(device)
                .withClasspath(System.getProperty("java.class.path"))
                .withNativeLibraryDirectory(nativeDirectory())) {
            container.start(); // returns once the device's port is ACTIVE inside the container
            ExecResult devices = container.execInContainer("/usr/bin/ibv_devices");
            assertThat(devices.getStdout()).contains(device);

            int port = 19_000 + (int) (ProcessHandle.current().pid() % 1000);
            CompletableFuture<ExecResult> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return container.runJava(ContainerPeer.class.getName(), "serve", device,
                            address.getHostAddress(), String.valueOf(port));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (RdmaRuntime runtime = RdmaRuntime.builder().provider("verbs").providerOption("verbs.device", device)
                    .build()) {
                RdmaConnection connection = connectWhenListening(runtime, new InetSocketAddress(address, port), server);
                RemoteBuffer token = RemoteBuffer.decode(
                        Arrays.copyOf(connection.connectionData().peerPrivateData(), 16));
                MemoryRegion local = runtime.register(ByteBuffer.allocateDirect(ContainerPeer.SIZE), Access.LOCAL_WRITE);
                connection.read(local.slice(0, ContainerPeer.SIZE), token, 0, OperationFlags.NONE)
                        .get(20, TimeUnit.SECONDS);
                for (int i = 0; i < ContainerPeer.SIZE; i++) {
                    assertThat(local.buffer().get(i)).as("byte %d", i).isEqualTo(ContainerPeer.pattern(i));
                }
                connection.disconnect().get(20, TimeUnit.SECONDS);
            }
            ExecResult served = server.get(60, TimeUnit.SECONDS);
            assertThat(served.getStdout()).as(served.getStderr()).contains("served");
        }
    }

    private static String nativeDirectory() {
        Optional<String> found = Arrays.stream(System.getProperty("java.library.path").split(File.pathSeparator))
                .filter(dir -> new File(dir, "libdisni.so").isFile()).findFirst();
        return found.orElseThrow(() -> new IllegalStateException("no libdisni.so on java.library.path"));
    }

    /** The peer's JVM starts slowly under emulation: retry while nothing listens yet, for up to a minute. */
    private static RdmaConnection connectWhenListening(RdmaRuntime runtime, InetSocketAddress destination,
                                                       CompletableFuture<ExecResult> server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return runtime.connector().connect(destination).start().get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (server.isDone() || System.nanoTime() > deadline) {
                    throw new AssertionError("could not connect to the peer; the peer said: "
                            + (server.isDone() ? server.get().getStdout() + server.get().getStderr() : "(running)"), e);
                }
                Thread.sleep(500);
            }
        }
    }
}
