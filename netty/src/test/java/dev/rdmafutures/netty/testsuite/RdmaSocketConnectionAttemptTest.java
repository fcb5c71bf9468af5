package dev.rdmafutures.netty.testsuite;

import static io.netty.testsuite.transport.socket.SocketTestPermutation.UNASSIGNED_PORT;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.testsuite.transport.TestsuitePermutation.BootstrapFactory;
import io.netty.testsuite.transport.socket.SocketConnectionAttemptTest;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

public class RdmaSocketConnectionAttemptTest extends SocketConnectionAttemptTest {
    /** The address Netty's suite expects no answer from (TEST-NET-2, RFC 5737). */
    private static final InetSocketAddress UNROUTABLE = new InetSocketAddress("198.51.100.254", 65535);

    /** Where it runs: the host build's permutation unless a subclass (the VM stage's) names another. */
    protected RdmaSocketTestPermutation permutation() {
        return RdmaSocketTestPermutation.INSTANCE;
    }

    @Override
    protected List<BootstrapFactory<Bootstrap>> newFactories() {
        return permutation().clientSocket();
    }

    @Override
    protected SocketAddress newSocketAddress() {
        return permutation().newSocketAddress();
    }

    @Override
    public void testConnectRefused(Bootstrap cb) throws Throwable {
        connectRefused(cb, false);
    }

    @Override
    public void testConnectRefusedHalfClosure(Bootstrap cb) throws Throwable {
        connectRefused(cb, true);
    }

    /**
     * Netty's {@code testConnectRefused0} (private there), with the port nobody listens on at the permutation's
     * address rather than at loopback: the same on the host, and the device's own address in the VM, where rdma_cm
     * on rxe has no loopback.
     */
    private void connectRefused(Bootstrap cb, boolean halfClosure) {
        Promise<Error> errorPromise = GlobalEventExecutor.INSTANCE.newPromise();
        cb.handler(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                errorPromise.setFailure(new AssertionError("should have never been called"));
            }
        });
        cb.option(ChannelOption.ALLOW_HALF_CLOSURE, halfClosure);
        ChannelFuture future = cb.connect(permutation().address(), UNASSIGNED_PORT).awaitUninterruptibly();
        assertInstanceOf(ConnectException.class, future.cause());
        assertNull(errorPromise.cause());
    }

    /**
     * Skipped where the network answers TCP connects to the address Netty expects no answer from: the connect then
     * does not wait for its deadline at all, and on siw (Linux 6.1) the intercepting proxy's bytes, parsed as an MPA
     * reply, crashed the kernel's CM worker (a NULL dereference), after which no connect on the device completed
     * and the test process could not exit. The connect deadline against a peer that never answers is the conformance
     * suite's {@code aConnectNobodyAnswersFailsAtItsDeadlineAndNeitherThePollerNorTheCloseWaitsForIt}.
     */
    @Test
    @Override
    public void testConnectTimeout(TestInfo testInfo) throws Throwable {
        assumeUnroutableUnanswered("waits for its deadline");
        super.testConnectTimeout(testInfo);
    }

    @Test
    @Override
    public void testConnectCancellation(TestInfo testInfo) throws Throwable {
        assumeUnroutableUnanswered("stays pending long enough to cancel");
        super.testConnectCancellation(testInfo);
    }

    /** Aborts a test that needs a connect to {@link #UNROUTABLE} to stay unanswered where the network answers it. */
    private static void assumeUnroutableUnanswered(String need) {
        assumeFalse(answers(UNROUTABLE), "this network answers TCP connects to " + UNROUTABLE + " (an intercepting "
                + "proxy), so no connect to it " + need);
    }

    private static boolean answers(InetSocketAddress address) {
        try (Socket socket = new Socket()) {
            socket.connect(address, 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
