package dev.rdmafutures.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Runs inside the VM: a real siw0 device, and the soft provider over the VM's Ethernet. */
@InRdmaVm(devices = "siw")
class SiwVmTest {

    @Test
    void siw0IsAnActiveVerbsDevice() throws Exception {
        assertThat(new RdmaDevices().ports())
                .anyMatch(p -> p.device().equals("siw0") && p.isActive() && p.linkLayer().equals("Ethernet"));
    }

    @Test
    void theSoftProviderReadsOverTheVmsEthernet() throws Exception {
        InetAddress eth0 = NetworkInterface.getByName("eth0").inetAddresses()
                .filter(a -> a.getAddress().length == 4).findFirst().orElseThrow();
        try (RdmaRuntime runtime = RdmaRuntime.builder().build()) {
            RdmaListener listener = runtime.listen(new InetSocketAddress(eth0, 0));
            CompletableFuture<RdmaConnection> c = runtime.connector().connect(listener.localAddress()).start();
            listener.next().get(20, TimeUnit.SECONDS).accept().get(20, TimeUnit.SECONDS);
            RdmaConnection connection = c.get(20, TimeUnit.SECONDS);
            MemoryRegion remote = runtime.register(ByteBuffer.allocateDirect(4096), Access.REMOTE_READ);
            remote.buffer().put(0, (byte) 7).put(4095, (byte) 9);
            MemoryRegion local = runtime.register(ByteBuffer.allocateDirect(4096), Access.LOCAL_WRITE);
            connection.read(local.slice(0, 4096), remote.remote(), 0, OperationFlags.NONE).get(20, TimeUnit.SECONDS);
            assertThat(local.buffer().get(0)).isEqualTo((byte) 7);
            assertThat(local.buffer().get(4095)).isEqualTo((byte) 9);
        }
    }
}
