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

/** Where futures complete and what the poller refuses (ndk-semantics §6), for any provider. */
public abstract class AbstractPollerConformanceTest extends ConformanceSupport {

    @Test
    void futuresCompleteOnThePollerThreadByDefault() {
        RdmaListener listener = listen();
        listener.onRequest(r -> r.accept().thenAccept(this::closeLater));
        String thread = await(client.connector().connect(listener.localAddress()).start()
                .thenApply(c -> {
                    closeLater(c);
                    return Thread.currentThread().getName();
                }));
        assertThat(thread).startsWith("client-poller");
    }

    @Test
    void blockingOnAnUnfinishedFutureFromThePollerFailsAtOnce() {
        RdmaListener listener = listen();
        listener.onRequest(r -> r.accept().thenAccept(this::closeLater));
        AtomicReference<Throwable> blocked = new AtomicReference<>();
        await(client.connector().connect(listener.localAddress()).start().thenAccept(c -> {
            closeLater(c);
            CompletableFuture<RdmaConnection> another = client.connector().connect(listener.localAddress()).start();
            try {
                another.join();
            } catch (Throwable t) {
                blocked.set(t);
            }
            another.thenAccept(this::closeLater);
        }));
        assertThat(blocked.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("deadlock");
    }

    @Test
    void aCompletionExecutorTakesCompletionsAndCallbacks() {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "user-completions"));
        closeLater(executor::shutdownNow);
        RdmaRuntime withExecutor = closeLater(fixture().runtimeBuilder().completionExecutor(executor).build());
        RdmaListener listener = listen();
        listener.onRequest(r -> r.accept().thenAccept(this::closeLater));
        String thread = await(withExecutor.connector().connect(listener.localAddress()).start()
                .thenApply(c -> {
                    closeLater(c);
                    return Thread.currentThread().getName();
                }));
        assertThat(thread).isEqualTo("user-completions");
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
