package dev.rdmafutures.testcontainers.netty;

import dev.rdmafutures.netty.testsuite.RdmaSocketTestPermutation;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@link NettyVmTest} on rxe0. */
@InRdmaVm(devices = "rxe", timeoutMinutes = 25) // 9 to 11 minutes in the VM, 5 of them SSL echo's 96 permutations
// Netty's own per-test timeouts stay; this bounds the rest (the host build's 60 s default, made for a real CPU, is
// not on this class path), under QEMU's emulation.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NettyOnRxeVmTest extends NettyVmTest {
    private static final NettyOnDevice DEVICE = new NettyOnDevice("rxe0");
    private static final RdmaSocketTestPermutation PERMUTATION = DEVICE.permutation();

    @Override
    NettyOnDevice device() {
        return DEVICE;
    }

    @Override
    RdmaSocketTestPermutation devicePermutation() {
        return PERMUTATION;
    }
}
