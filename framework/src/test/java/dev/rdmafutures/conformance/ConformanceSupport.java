package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Status;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * Shared set-up for the conformance suite: a server runtime and a client runtime (two "hosts"), closed after each
 * test, and helpers that wait with a deadline and check statuses.
 */
public abstract class ConformanceSupport {
    protected static final Duration WAIT = Duration.ofSeconds(20);
    /** The client runtime's poller threads' name prefix. */
    protected static final String CLIENT_POLLER = "client-poller";

    protected RdmaRuntime server;
    protected RdmaRuntime client;
    /** Synchronized: tests register from worker threads (manyConnectionsAndThreadsKeepEveryByteIntact). */
    private final List<AutoCloseable> toClose = Collections.synchronizedList(new ArrayList<>());

    /** The provider under test. */
    protected abstract ProviderFixture fixture();

    @BeforeEach
    void startRuntimes(TestInfo test) {
        String divergence = test.getTestMethod().map(m -> fixture().knownDivergences().get(m.getName())).orElse(null);
        assumeTrue(divergence == null, () -> "known divergence of this device: " + divergence);
        server = closeLater(fixture().runtimeBuilder().threadNamePrefix("server-poller").build());
        client = closeLater(fixture().runtimeBuilder().threadNamePrefix(CLIENT_POLLER).build());
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    protected <T extends AutoCloseable> T closeLater(T resource) {
        toClose.add(resource);
        return resource;
    }

    protected InetSocketAddress anyPort() {
        return new InetSocketAddress(fixture().deviceAddress(), 0);
    }

    protected RdmaListener listen() {
        return closeLater(server.listen(anyPort()));
    }

    protected static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("future failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits for {@code future} to fail and returns its RdmaException, checking the status. */
    protected static RdmaException awaitFailure(CompletableFuture<?> future, Status expected) {
        RdmaException error = awaitAnyFailure(future, "expected " + expected);
        assertThat(error.status()).as("status of %s", error.getMessage()).isEqualTo(expected);
        return error;
    }

    /** Waits for {@code future} to fail and returns its RdmaException, whatever the status. */
    protected static RdmaException awaitAnyFailure(CompletableFuture<?> future) {
        return awaitAnyFailure(future, "expected a failure");
    }

    private static RdmaException awaitAnyFailure(CompletableFuture<?> future, String expectation) {
        try {
            Object value = future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return fail(expectation + " but the future completed with " + value);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(RdmaException.class);
            return (RdmaException) e.getCause();
        } catch (TimeoutException e) {
            return fail(expectation + " but the future did not complete within " + WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Returns once every request {@code receiver} made before this call is posted: a zero-length READ of
     * {@code peers} it makes now completes only after its poller posted what came before. Kernel iWARP ends a
     * connection whose Send finds no receive (AdapterInfo.sendWaitsForPeerReceive), so a test that posts a receive
     * and then sends from the peer must wait for the post. {@code own} is a region of the receiver's domain,
     * {@code peers} a region the peer registered for remote reads.
     */
    protected static void awaitPosted(RdmaConnection receiver, MemoryRegion own, MemoryRegion peers) {
        await(receiver.read(own.slice(0, 0), peers.remote(), 0, OperationFlags.NONE));
    }

    /** Asserts that {@code call} throws an {@link RdmaException} with the {@code expected} status. */
    protected static void assertStatus(Status expected, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RdmaException.class)
                .extracting(e -> ((RdmaException) e).status()).isEqualTo(expected);
    }

    /**
     * Checks what a barrier between two connections of one runtime stands on: one poller drives both, so the later
     * one's events are handled after the earlier one's (the fixtures build runtimes with the default single poller).
     */
    protected static void assertOnePoller(RdmaRuntime runtime) {
        assertThat(runtime.metrics().pollers()).as("pollers of %s, which the barrier orders on", runtime).hasSize(1);
    }

    /**
     * An ordering barrier through both runtimes' pollers: a new connection from the client to the server, ended by
     * the client once the server established its side; returns when the server saw that end. Whatever the client's
     * poller sent before this call reached the server's host before the connection's last set-up message, which the
     * server's poller handled no later than the poll that established its side; the end comes in a later poll (it is
     * sent only after that), so by then all of it has been handled, whichever order one poll takes its sockets in.
     */
    protected void barrierThroughANewConnection() {
        assertOnePoller(client);
        assertOnePoller(server);
        Pair pair = connectPair(listen());
        await(pair.client().disconnect());
        await(pair.server().disconnected());
    }

    /** Connects a client to {@code listener} and accepts on the server side with defaults. */
    protected Pair connectPair(RdmaListener listener) {
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        ConnectionRequest request = await(listener.next());
        RdmaConnection s = await(request.accept());
        return new Pair(closeLater(await(c)), closeLater(s));
    }

    /** Both ends of one connection. */
    protected record Pair(RdmaConnection client, RdmaConnection server) {
    }
}
