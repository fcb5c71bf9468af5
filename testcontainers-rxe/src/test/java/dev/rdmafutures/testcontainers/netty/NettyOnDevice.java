package dev.rdmafutures.testcontainers.netty;

import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.netty.RdmaEventLoopGroup;
import dev.rdmafutures.netty.testsuite.RdmaSocketTestPermutation;
import io.netty.channel.EventLoopGroup;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The Netty transport on the verbs provider over one VM device (rxe0 or siw0), with the runtime settings of the
 * verbs conformance suite ({@code VerbsFixture}), at the address of eth0, which both devices are bound to: rdma_cm
 * on rxe cannot connect over loopback, where Netty's suite binds by default.
 */
record NettyOnDevice(String device) {
    /** Each event loop's runtime: verbs on this device. */
    Consumer<RdmaRuntime.Builder> runtime() {
        return builder -> builder.provider("verbs").providerOption("verbs.device", device)
                .connectTimeout(Duration.ofSeconds(10))
                .handshakeTimeout(Duration.ofSeconds(5))
                .disconnectTimeout(Duration.ofSeconds(2));
    }

    /** The permutation Netty's suite runs with; its event loops start on first use, inside the VM. */
    RdmaSocketTestPermutation permutation() {
        return new RdmaSocketTestPermutation(runtime(), NettyOnDevice::deviceAddress);
    }

    /** A group of one loop, for gRPC. */
    EventLoopGroup newGroup() {
        return new RdmaEventLoopGroup(1, runtime());
    }

    /** The VM's eth0 IPv4 address, which rxe0 and siw0 are bound to. */
    static InetAddress deviceAddress() {
        try {
            return NetworkInterface.getByName("eth0").inetAddresses()
                    .filter(a -> a.getAddress().length == 4).findFirst().orElseThrow();
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }
}
