package dev.rdmafutures.testcontainers.netty;

import dev.rdmafutures.netty.GrpcTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketAddressesTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketAutoReadTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketBufReleaseTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketCancelWriteTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketChannelNotYetConnectedTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketConditionalWritabilityTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketConnectTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketConnectionAttemptTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketDataReadInitialStateTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketEchoTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketExceptionHandlingTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketFileRegionTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketFixedLengthEchoTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketGatheringWriteTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketHalfClosedTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketMultipleConnectTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketObjectEchoTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketReadPendingTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketSpdyEchoTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketSslClientRenegotiateTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketSslEchoTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketSslGreetingTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketStartTlsTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketStringEchoTest;
import dev.rdmafutures.netty.testsuite.RdmaSocketTestPermutation;
import dev.rdmafutures.testcontainers.InRdmaVm;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Timeout;

/**
 * Netty's transport suite, as the netty module subclasses it, and its gRPC test, on the verbs provider over
 * rxe0, inside one VM boot, at the device's address. Every suite class that runs on {@code soft} in the host build
 * runs here; the ones the host build disables as a whole (reset and forcible close, which need TCP's
 * {@code SO_LINGER}; shutdown by peer or self, whose other end is a plain TCP socket) are left out, and the tests
 * they disable one by one are skipped here too, with the same reasons.
 */
@InRdmaVm(devices = "rxe", timeoutMinutes = 25) // 9 to 11 minutes in the VM, 5 of them SSL echo's 96 permutations
// Netty's own per-test timeouts stay; this bounds the rest (the host build's 60 s default, made for a real CPU, is
// not on this class path), under QEMU's emulation.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NettyOnRxeVmTest {
    private static final NettyOnDevice DEVICE = new NettyOnDevice("rxe0");
    private static final RdmaSocketTestPermutation PERMUTATION = DEVICE.permutation();

    @Nested
    class Addresses extends RdmaSocketAddressesTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class AutoRead extends RdmaSocketAutoReadTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class BufRelease extends RdmaSocketBufReleaseTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class CancelWrite extends RdmaSocketCancelWriteTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class ChannelNotYetConnected extends RdmaSocketChannelNotYetConnectedTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class ConditionalWritability extends RdmaSocketConditionalWritabilityTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class Connect extends RdmaSocketConnectTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class ConnectionAttempt extends RdmaSocketConnectionAttemptTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class DataReadInitialState extends RdmaSocketDataReadInitialStateTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class Echo extends RdmaSocketEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class ExceptionHandling extends RdmaSocketExceptionHandlingTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class FileRegion extends RdmaSocketFileRegionTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class FixedLengthEcho extends RdmaSocketFixedLengthEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class GatheringWrite extends RdmaSocketGatheringWriteTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class HalfClosed extends RdmaSocketHalfClosedTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class MultipleConnect extends RdmaSocketMultipleConnectTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class ObjectEcho extends RdmaSocketObjectEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class ReadPending extends RdmaSocketReadPendingTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class SpdyEcho extends RdmaSocketSpdyEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class SslClientRenegotiate extends RdmaSocketSslClientRenegotiateTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class SslEcho extends RdmaSocketSslEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class SslGreeting extends RdmaSocketSslGreetingTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class StartTls extends RdmaSocketStartTlsTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    @Nested
    class StringEcho extends RdmaSocketStringEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return PERMUTATION;
        }
    }

    /**
     * Its call deadlines stretched 4 times: they guard against a hang and claim no speed, and under QEMU's emulation
     * a cold JVM's first gRPC call took 11 s (deadline 10 s) and the 10,000-message stream 16 to 32 s (deadline
     * 30 s). What each test asserts is unchanged.
     */
    @Nested
    class Grpc extends GrpcTest {
        @Override
        protected long deadlineScale() {
            return 4;
        }

        @Override
        protected EventLoopGroup newGroup() {
            return DEVICE.newGroup();
        }

        @Override
        protected InetAddress address() {
            return NettyOnDevice.deviceAddress();
        }
    }
}
