package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** Where futures complete and what the poller refuses (NDK's request completion callbacks), for any provider. */
public abstract class AbstractPollerConformanceTest extends ConformanceSupport {

    /** The thread that completes {@code runtime}'s side of a connection when the peer disconnects. */
    private String threadCompletingDisconnect(dev.rdmafutures.RdmaRuntime runtime) {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = runtime.connector().connect(listener.localAddress()).start();
        RdmaConnection peer = await(await(listener.next()).accept());
        RdmaConnection ours = closeLater(await(c));
        // Attached while the future is certainly unfinished: the peer has not disconnected yet.
        CompletableFuture<String> thread = ours.disconnected().thenApply(r -> Thread.currentThread().getName());
        await(peer.disconnect());
        return await(thread);
    }

    @Test
    void futuresCompleteOnThePollerThreadByDefault() {
        assertThat(threadCompletingDisconnect(client)).startsWith("client-poller");
    }

    @Test
    void blockingOnAnUnfinishedFutureFromThePollerFailsAtOnce() {
        RdmaListener listener = listen();
        AtomicReference<Throwable> blocked = new AtomicReference<>();
        CompletableFuture<Void> handled = new CompletableFuture<>();
        listener.onRequest(r -> {
            // The handler runs on the server's poller. A second connect to this listener cannot complete while
            // that poller is busy here, so joining it would deadlock: it must fail at once instead.
            CompletableFuture<RdmaConnection> another = client.connector().connect(listener.localAddress()).start();
            try {
                another.join();
            } catch (Throwable t) {
                blocked.set(t);
            }
            another.cancel(true);
            r.reject(new byte[0]);
            handled.complete(null);
        });
        CompletableFuture<RdmaConnection> first = client.connector().connect(listener.localAddress()).start();
        await(handled);
        assertThat(blocked.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("deadlock");
        awaitFailure(first, dev.rdmafutures.Status.CONNECTION_REFUSED);
    }

    @Test
    void aCompletionExecutorTakesCompletionsAndCallbacks() {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "user-completions"));
        closeLater(executor::shutdownNow);
        RdmaRuntime withExecutor = closeLater(fixture().runtimeBuilder().completionExecutor(executor).build());
        assertThat(threadCompletingDisconnect(withExecutor)).isEqualTo("user-completions");
    }

    @Test
    void aThrowingUserCallbackIsCountedAndThePollerSurvives() {
        RdmaListener listener = listen();
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress())
                .onDisconnect(r -> {
                    throw new IllegalStateException("user bug in disconnect callback");
                }).start();
        RdmaConnection s = await(await(listener.next()).accept());
        RdmaConnection cc = await(c);
        long before = client.pollerErrorCount();
        await(s.disconnect());
        await(cc.disconnected());
        await(cc.disconnect());
        assertThat(client.pollerErrorCount()).isEqualTo(before + 1);
        connectPair(listen()); // still serving
    }

    @Test
    void aListenersConnectionsAreDealtToEveryPollerAndEachCompletesItsOperationsThere() {
        RdmaRuntime server = closeLater(fixture().runtimeBuilder().pollerThreads(2).threadNamePrefix("dealt").build());
        RdmaListener listener = closeLater(server.listen(anyPort()));
        Map<RdmaConnection, String> requestThreads = new ConcurrentHashMap<>();
        listener.onRequest(r -> r.accept().thenAccept(c -> requestThreads.put(c, Thread.currentThread().getName())));
        MemoryRegion source = closeLater(client.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ));
        MemoryRegion sink = closeLater(server.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));

        for (int i = 0; i < 4; i++) {
            closeLater(await(client.connector().connect(listener.localAddress()).start()));
        }

        Waits.until("every accept completed", WAIT, () -> requestThreads.size() == 4);
        assertThat(new HashSet<>(requestThreads.values())).as("the pollers that took the requests")
                .containsExactlyInAnyOrder("dealt-0", "dealt-1");
        for (Map.Entry<RdmaConnection, String> accepted : requestThreads.entrySet()) {
            RdmaConnection c = closeLater(accepted.getKey());
            // A callback, not a stage on the future: one attached after a fast completion runs on this thread.
            CompletableFuture<String> readOn = new CompletableFuture<>();
            assertThat(c.read(sink.slice(0, 64), source.remote(), 0, OperationFlags.NONE, new CompletionCallback() {
                @Override
                public void completed(long context, int bytes) {
                    readOn.complete(Thread.currentThread().getName());
                }

                @Override
                public void failed(long context, RdmaException error) {
                    readOn.completeExceptionally(error);
                }
            }, 0)).isEqualTo(Status.SUCCESS);
            assertThat(await(readOn)).as("the thread a READ on " + c + " completed on").isEqualTo(accepted.getValue());
        }
    }

    @ParameterizedTest
    @EnumSource(IdleStrategy.class)
    void everyIdleStrategyConnects(IdleStrategy strategy) {
        RdmaRuntime runtime = closeLater(fixture().runtimeBuilder().idleStrategy(strategy).pollerThreads(2).build());
        RdmaListener listener = closeLater(runtime.listen(anyPort()));
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        closeLater(await(await(listener.next()).accept()));
        closeLater(await(c));
    }
}
