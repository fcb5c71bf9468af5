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
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import org.junit.jupiter.api.Nested;

/**
 * Netty's transport suite, as the netty module subclasses it, and its gRPC test, on the verbs provider over one VM
 * device ({@link NettyOnRxeVmTest}, {@link NettyOnSiwVmTest}), inside one VM boot, at the device's address. Every
 * suite class that runs on {@code soft} in the host build runs here; the ones the host build disables as a whole
 * (reset and forcible close, which need TCP's {@code SO_LINGER}; shutdown by peer or self, whose other end is a plain
 * TCP socket) are left out, and the tests they disable one by one are skipped here too, with the same reasons.
 */
abstract class NettyVmTest {
    /** The device's runtime configuration and address; one per subclass, built once. */
    abstract NettyOnDevice device();

    /** The suite's permutation on that device; one per subclass, built once. */
    abstract RdmaSocketTestPermutation devicePermutation();

    @Nested
    class Addresses extends RdmaSocketAddressesTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class AutoRead extends RdmaSocketAutoReadTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class BufRelease extends RdmaSocketBufReleaseTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class CancelWrite extends RdmaSocketCancelWriteTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class ChannelNotYetConnected extends RdmaSocketChannelNotYetConnectedTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class ConditionalWritability extends RdmaSocketConditionalWritabilityTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class Connect extends RdmaSocketConnectTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class ConnectionAttempt extends RdmaSocketConnectionAttemptTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class DataReadInitialState extends RdmaSocketDataReadInitialStateTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class Echo extends RdmaSocketEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class ExceptionHandling extends RdmaSocketExceptionHandlingTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class FileRegion extends RdmaSocketFileRegionTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class FixedLengthEcho extends RdmaSocketFixedLengthEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class GatheringWrite extends RdmaSocketGatheringWriteTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class HalfClosed extends RdmaSocketHalfClosedTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class MultipleConnect extends RdmaSocketMultipleConnectTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class ObjectEcho extends RdmaSocketObjectEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class ReadPending extends RdmaSocketReadPendingTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class SpdyEcho extends RdmaSocketSpdyEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class SslClientRenegotiate extends RdmaSocketSslClientRenegotiateTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class SslEcho extends RdmaSocketSslEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class SslGreeting extends RdmaSocketSslGreetingTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class StartTls extends RdmaSocketStartTlsTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
        }
    }

    @Nested
    class StringEcho extends RdmaSocketStringEchoTest {
        @Override
        protected RdmaSocketTestPermutation permutation() {
            return NettyVmTest.this.devicePermutation();
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
            return NettyVmTest.this.device().newGroup();
        }

        @Override
        protected InetAddress address() {
            return NettyOnDevice.deviceAddress();
        }
    }
}
