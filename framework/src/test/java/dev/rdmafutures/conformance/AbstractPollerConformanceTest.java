package dev.rdmafutures.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.util.concurrent.CompletableFuture;
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
