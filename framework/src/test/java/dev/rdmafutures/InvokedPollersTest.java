package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.conformance.Waits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A runtime with several pollers the application drives, each by the thread that claimed it (invokedPollers). */
class InvokedPollersTest {
    private static final int CONNECTIONS = 6;
    /** Closed backwards after each test; connections are added from the threads their callbacks run on. */
    private final List<AutoCloseable> cleanup = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    @Test
    void aListenersConnectionsAreDealtToEveryPollerEachOnTheThreadThatClaimedIt() throws Exception {
        RdmaRuntime server = invoked(2, "spread-server");
        List<DrivingThread> drivers = List.of(drive(server, 0), drive(server, 1));
        RdmaRuntime client = RdmaRuntime.builder().threadNamePrefix("spread-client").build();
        cleanup.add(client);
        Set<String> requestThreads = ConcurrentHashMap.newKeySet();
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(request -> {
            requestThreads.add(Thread.currentThread().getName());
            request.accept();
        });

        for (int i = 0; i < CONNECTIONS; i++) {
            RdmaConnection c = client.connector().connect(listener.localAddress()).start().get(10, TimeUnit.SECONDS);
            cleanup.add(c::close);
        }

        assertThat(requestThreads).as("soft deals accepted connections to the pollers round robin")
                .containsExactlyInAnyOrder(drivers.get(0).getName(), drivers.get(1).getName());
    }

    @Test
    void whatAnOwnerStartsLivesOnItsPollerAndCompletesOnItsThread() throws Exception {
        RdmaListener listener = acceptingListener("placement-server");
        RdmaRuntime client = invoked(2, "placement-client");
        List<DrivingThread> drivers = List.of(drive(client, 0), drive(client, 1));

        for (int round = 0; round < 2; round++) {
            for (DrivingThread driver : drivers) {
                CompletableFuture<String> completedOn = driver.call(() -> client.connector()
                        .connect(listener.localAddress()).start()
                        .thenApply(c -> {
                            cleanup.add(c::close);
                            return Thread.currentThread().getName();
                        }));
                assertThat(completedOn.get(10, TimeUnit.SECONDS)).isEqualTo(driver.getName());
            }
        }
    }

    @Test
    void aPollerItsOwnerStopsEndsItsConnectionsOnItsThreadAndTheListenerDealsToTheOthers() throws Exception {
        RdmaRuntime server = invoked(2, "retire-server");
        List<DrivingThread> drivers = List.of(drive(server, 0), drive(server, 1));
        RdmaRuntime client = RdmaRuntime.builder().threadNamePrefix("retire-client").build();
        cleanup.add(client);
        Map<String, RdmaConnection> acceptedOn = new ConcurrentHashMap<>();
        List<String> acceptThreads = new CopyOnWriteArrayList<>();
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(request -> request.accept().thenAccept(c -> {
            acceptedOn.put(Thread.currentThread().getName(), c);
            acceptThreads.add(Thread.currentThread().getName());
        }));
        for (int i = 0; i < 2; i++) {
            cleanup.add(client.connector().connect(listener.localAddress()).start().get(10, TimeUnit.SECONDS));
        }
        Waits.until("both accepts completed", Duration.ofSeconds(10), () -> acceptedOn.size() == 2);
        CompletableFuture<String> endedOn = acceptedOn.get("driver-1").disconnected()
                .thenApply(reason -> Thread.currentThread().getName());

        drivers.get(1).retire();

        assertThat(endedOn.get(10, TimeUnit.SECONDS)).isEqualTo("driver-1");
        for (int i = 0; i < 2; i++) {
            cleanup.add(client.connector().connect(listener.localAddress()).start().get(10, TimeUnit.SECONDS));
        }
        Waits.until("four accepts completed", Duration.ofSeconds(10), () -> acceptThreads.size() == 4);
        assertThat(acceptThreads.subList(2, 4)).as("where the later accepts completed")
                .containsExactly("driver-0", "driver-0");
        assertThat(server.pollerErrorCount()).isZero();
    }

    @Test
    void aCloseFromAnotherThreadLetsAnOwnerInsideItsWaitStopTheLoopOnItsOwnThread() throws Exception {
        RdmaListener listener = acceptingListener("waiting-server");
        RdmaRuntime runtime = invoked(2, "close-while-waiting");
        InvokedPoller first = runtime.invokedPoller(0);
        CompletableFuture<CompletableFuture<String>> connected = new CompletableFuture<>();
        Thread owner = new Thread(() -> {
            first.claim();
            CompletableFuture<RdmaConnection> connect = runtime.connector().connect(listener.localAddress()).start();
            while (!connect.isDone()) {
                first.awaitWork(10, TimeUnit.MILLISECONDS);
                first.poll();
            }
            connected.complete(connect.join().disconnected().thenApply(reason -> Thread.currentThread().getName()));
            first.awaitWork(1, TimeUnit.MINUTES); // until the close wakes it
        }, "waiting-owner");
        owner.start();
        CompletableFuture<String> endedOn = connected.get(10, TimeUnit.SECONDS);
        Waits.until("the owner waits in its loop", Duration.ofSeconds(10), () -> Arrays.stream(owner.getStackTrace())
                .anyMatch(frame -> frame.getMethodName().equals("await")
                        && frame.getClassName().endsWith("SoftEventLoop")));

        runtime.close();

        assertThat(endedOn.get(10, TimeUnit.SECONDS)).as("the thread that closed the owner's loop")
                .isEqualTo("waiting-owner");
        owner.join(10_000);
        assertThat(owner.isAlive()).isFalse();
    }

    @Test
    void aThreadDrivesOnePollerOfARuntime() {
        RdmaRuntime runtime = invoked(2, "one-each");
        runtime.invokedPoller(0).claim();
        assertThatThrownBy(() -> runtime.invokedPoller(1).claim()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("each thread drives one of this runtime's pollers");
        assertThat(runtime.invokedPoller(1).owner()).isEmpty();
    }

    @Test
    void aPollerIsClaimedOnceAndDrivenOnlyByItsOwner() throws Exception {
        RdmaRuntime runtime = invoked(2, "claim");
        InvokedPoller first = runtime.invokedPoller(0);
        InvokedPoller second = runtime.invokedPoller(1);
        assertThat(runtime.owner()).isEmpty();
        assertThatThrownBy(first::poll).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("driven by no thread yet");

        first.claim();
        first.claim(); // again, by its owner: nothing changes
        first.poll();
        runtime.poll(); // the caller's pollers: the first alone
        first.awaitWork(1, TimeUnit.MILLISECONDS);

        assertThat(first.owner()).contains(Thread.currentThread());
        assertThat(runtime.owner()).contains(Thread.currentThread());
        assertThat(second.owner()).isEmpty();
        assertThatThrownBy(second::poll).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> runtime.handOver(new Thread(() -> { })))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("none is handed over");
        String me = Thread.currentThread().getName();
        assertThat(onAnotherThread(() -> {
            first.claim();
            return null;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("'" + me + "'");
        assertThat(onAnotherThread(() -> runtime.poll())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("drives none of the 2 pollers");
        assertThat(onAnotherThread(() -> {
            second.claim();
            return second.poll();
        })).isNull();
        assertThat(second.owner()).isPresent().get().isNotEqualTo(Thread.currentThread());
        assertThatThrownBy(() -> runtime.invokedPoller(2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> runtime.invokedPoller(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRuntimeWithOnePollerIsDrivenByItsBuilderAsBefore() {
        RdmaRuntime runtime = RdmaRuntime.builder().pollerThreads(0).threadNamePrefix("one").build();
        cleanup.add(runtime);
        InvokedPoller only = runtime.invokedPoller(0);
        assertThat(only.owner()).contains(Thread.currentThread());
        only.claim();
        assertThat(only.poll()).isNotNegative();
        RdmaRuntime threaded = RdmaRuntime.builder().threadNamePrefix("threaded").build();
        cleanup.add(threaded);
        assertThatThrownBy(() -> threaded.invokedPoller(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theBuilderRefusesPollerCountsOutOfRangeAndPollersBesidePollerThreads() {
        for (int count : new int[] {0, 65}) {
            assertThatThrownBy(() -> RdmaRuntime.builder().invokedPollers(count)).isInstanceOf(RdmaException.class)
                    .extracting(e -> ((RdmaException) e).status()).isEqualTo(Status.INVALID_PARAMETER);
        }
        assertThatThrownBy(() -> RdmaRuntime.builder().pollerThreads(2).invokedPollers(2).build())
                .isInstanceOf(RdmaException.class).hasMessageContaining("needs pollerThreads(0)");
    }

    /** A listener that accepts every request, on a runtime of its own with a poller thread. */
    private RdmaListener acceptingListener(String name) {
        RdmaRuntime server = RdmaRuntime.builder().threadNamePrefix(name).build();
        cleanup.add(server);
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(ConnectionRequest::accept);
        return listener;
    }

    private RdmaRuntime invoked(int pollers, String name) {
        RdmaRuntime runtime = RdmaRuntime.builder().pollerThreads(0).invokedPollers(pollers).threadNamePrefix(name)
                .build();
        cleanup.add(runtime); // closed after the threads that drive it stopped (cleanup runs backwards)
        return runtime;
    }

    private DrivingThread drive(RdmaRuntime runtime, int index) {
        DrivingThread driver = new DrivingThread(runtime.invokedPoller(index));
        driver.start();
        driver.claimed.join();
        cleanup.add(driver::finish);
        return driver;
    }

    /** What {@code call} throws on a thread of its own, or null when it returns. */
    private static Throwable onAnotherThread(Supplier<?> call) throws Exception {
        var executor = Executors.newSingleThreadExecutor();
        try {
            Future<?> f = executor.submit(call::get);
            f.get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } finally {
            executor.shutdownNow();
        }
    }

    /** A thread that claims one poller and drives it, running the tasks it is handed between its cycles. */
    private static final class DrivingThread extends Thread {
        private final InvokedPoller poller;
        private final CompletableFuture<Void> claimed = new CompletableFuture<>();
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private volatile boolean stopped;

        DrivingThread(InvokedPoller poller) {
            super("driver-" + poller.index());
            this.poller = poller;
        }

        @Override
        public void run() {
            poller.claim();
            claimed.complete(null);
            while (!stopped) {
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    task.run();
                }
                if (stopped) {
                    return;
                }
                poller.awaitWork(10, TimeUnit.MILLISECONDS);
                poller.poll();
            }
        }

        /** Stops the poller on this thread, which then stops driving it. */
        void retire() throws InterruptedException {
            tasks.add(() -> {
                poller.close();
                stopped = true;
            });
            poller.wakeUp();
            join(10_000);
        }

        /** Runs {@code call} on this thread and passes its future on. */
        <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
            CompletableFuture<T> result = new CompletableFuture<>();
            tasks.add(() -> call.get().whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(v);
                }
            }));
            poller.wakeUp();
            return result;
        }

        void finish() throws InterruptedException {
            stopped = true;
            poller.wakeUp();
            join(10_000);
        }
    }
}
