package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.conformance.ManualTicker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A runtime the application drives itself (pollerThreads(0), Agrona's AgentInvoker model). */
class InvokedRuntimeTest {
    private RdmaRuntime server;
    private RdmaRuntime client;

    @BeforeEach
    void start() {
        server = RdmaRuntime.builder().threadNamePrefix("invoked-test-server").build();
        client = RdmaRuntime.builder().pollerThreads(0).threadNamePrefix("invoked-test-client").build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void joinDrivesTheRuntimeOnTheOwningThreadAndNoPollerThreadStarts() {
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("invoked-test-client"));
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(r -> r.accept());
        RdmaConnection c = client.connector().connect(listener.localAddress()).withPrivateData(new byte[] {1})
                .start().join();
        assertThat(c.isConnected()).isTrue();
        MemoryRegion remote = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
        remote.buffer().put(0, (byte) 42);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        assertThat(c.read(local.slice(0, 64), remote.remote(), 0, OperationFlags.NONE).join().bytes()).isEqualTo(64);
        assertThat(local.buffer().get(0)).isEqualTo((byte) 42);
        String completingThread = c.disconnect().thenApply(v -> Thread.currentThread().getName()).join();
        assertThat(completingThread).isEqualTo(Thread.currentThread().getName());
    }

    @Test
    void deadlinesFireWhileTheOwnerWaits() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RdmaConnection> f = client.connector()
                    .connect(new InetSocketAddress(silent.getInetAddress(), silent.getLocalPort()))
                    .withTimeout(Duration.ofMillis(300)).start();
            assertThatThrownBy(f::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(RdmaException.class)
                    .extracting(e -> ((RdmaException) e.getCause()).status()).isEqualTo(Status.IO_TIMEOUT);
        }
    }

    @Test
    void onlyTheOwningThreadMayPoll() throws Exception {
        client.poll();
        Future<?> other = Executors.newSingleThreadExecutor().submit(() -> client.poll());
        assertThatThrownBy(() -> other.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(server::poll).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theOwnerHandsTheRuntimeToAnotherThreadDeliberately() throws Exception {
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(r -> r.accept());
        assertThat(client.owner()).contains(Thread.currentThread()); // the building thread
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch handedOver = new CountDownLatch(1);
        AtomicReference<Throwable> workerFailure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                handedOver.await();
                while (!stop.get()) {
                    client.poll();
                }
            } catch (Throwable t) {
                workerFailure.set(t);
            }
        }, "invoked-test-worker");
        worker.start();
        client.handOver(worker);
        handedOver.countDown();
        assertThat(client.owner()).contains(worker);
        assertThatThrownBy(client::poll).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'invoked-test-worker'");
        // This thread no longer drives the runtime: it waits while the new owner polls.
        RdmaConnection c = client.connector().connect(listener.localAddress()).start().get(10, TimeUnit.SECONDS);
        assertThat(c.isConnected()).isTrue();
        stop.set(true);
        worker.join(10_000);
        assertThat(workerFailure.get()).isNull();
        assertThat(worker.isAlive()).isFalse();
    }

    @Test
    void aThreadThatDoesNotOwnTheRuntimeIsToldWhichThreadDoes() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "invoked-test-intruder"));
        try {
            Future<?> poll = other.submit(() -> client.poll());
            assertThatThrownBy(() -> poll.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("driven by thread '" + Thread.currentThread().getName() + "'")
                    .hasMessageContaining("not 'invoked-test-intruder'")
                    .hasMessageContaining("handOver");
            Future<?> steal = other.submit(() -> client.handOver(Thread.currentThread()));
            assertThatThrownBy(() -> steal.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IllegalStateException.class);
            assertThat(client.owner()).contains(Thread.currentThread());
            assertThat(client.poll()).isGreaterThanOrEqualTo(0); // the owner still drives it
        } finally {
            other.shutdownNow();
        }
        assertThat(server.owner()).isEmpty();
        assertThatThrownBy(() -> server.handOver(Thread.currentThread())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void waitingOnAnotherRuntimesFutureKeepsTheOwnedRuntimeRunning() throws Exception {
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        CompletableFuture<RdmaConnection> c = client.connector().connect(listener.localAddress()).start();
        // The server's future: it completes only once the client, driven by no thread but this one, has sent its
        // request, so this wait must run the client.
        ConnectionRequest request = listener.next().get(10, TimeUnit.SECONDS);
        RdmaConnection accepted = request.accept().get(10, TimeUnit.SECONDS);
        assertThat(c.get(10, TimeUnit.SECONDS).isConnected()).isTrue();
        assertThat(accepted.isConnected()).isTrue();
    }

    @Test
    void aBoundedWaitOnTheOwnerLastsItsBoundNotTwice() throws Exception {
        RdmaConnection c = connectToAcceptingServer();
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        CompletableFuture<Completion> receive = c.receive(local.slice(0, 64)); // the server never sends
        long bound = TimeUnit.MILLISECONDS.toNanos(500);
        long start = System.nanoTime();
        assertThatThrownBy(() -> receive.get(bound, TimeUnit.NANOSECONDS)).isInstanceOf(TimeoutException.class);
        long waited = System.nanoTime() - start;
        // The owner polls until the deadline; the wait that follows may not start the bound over (it was 2x).
        assertThat(waited).isBetween(bound, bound + TimeUnit.MILLISECONDS.toNanos(400));
    }

    @Test
    void anotherThreadClosingTheRuntimeNeverStopsTheLoopUnderTheOwnersPoll() throws Exception {
        // The owner polls without pause while READs are in flight; another thread closes the runtime. The loop
        // must stop between two of the owner's cycles, never under one (a selector closed under its selectNow
        // is an error the poller records), and every READ must end.
        for (int round = 0; round < 50; round++) {
            RdmaRuntime owned = RdmaRuntime.builder().pollerThreads(0).threadNamePrefix("invoked-close-" + round)
                    .build();
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.onRequest(r -> r.withReadLimits(4, 4).accept());
            RdmaConnection c = owned.connector().connect(listener.localAddress()).withReadLimits(4, 4).start()
                    .get(10, TimeUnit.SECONDS);
            MemoryRegion remote = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
            MemoryRegion local = owned.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
            AtomicReference<RdmaException> unexpected = new AtomicReference<>();
            CompletionCallback again = new CompletionCallback() {
                @Override
                public void completed(long context, int bytes) {
                    try {
                        c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE, this, context);
                    } catch (RdmaException refused) { // the close began: posts are refused from then on
                        failed(context, refused);
                    }
                }

                @Override
                public void failed(long context, RdmaException error) {
                    if (error.status() != Status.CANCELED && error.status() != Status.CONNECTION_INVALID) {
                        unexpected.compareAndSet(null, error);
                    }
                }
            };
            for (int i = 0; i < 4; i++) {
                c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE, again, i);
            }
            CountDownLatch polling = new CountDownLatch(200);
            Thread closer = new Thread(() -> {
                try {
                    polling.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                owned.close();
            }, "invoked-test-closer");
            closer.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (closer.isAlive() && System.nanoTime() - deadline < 0) {
                owned.poll();
                polling.countDown();
            }
            closer.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(closer.isAlive()).as("close() returned").isFalse();
            assertThat(owned.isClosed()).isTrue();
            assertThat(owned.poll()).isZero(); // closed: the owner's next step does nothing
            assertThat(owned.pollerErrorCount()).as("errors the poller contained, round %d: %s", round,
                    owned.metrics().pollerErrorsByCause()).isZero();
            assertThat(unexpected.get()).isNull();
            listener.close();
            remote.close();
        }
    }

    @Test
    void awaitWorkReturnsOnAWakeUpFromAnotherThreadAndRefusesOtherThreads() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch blocking = new CountDownLatch(1);
            Future<?> waker = other.submit(() -> {
                blocking.await();
                Thread.sleep(50); // let the owner reach its blocking wait; a wake-up before it counts too
                client.wakeUp();
                return null;
            });
            long start = System.nanoTime();
            blocking.countDown();
            client.awaitWork(30, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
            waker.get(10, TimeUnit.SECONDS);
            Future<?> foreign = other.submit(() -> client.awaitWork(1, TimeUnit.MILLISECONDS));
            assertThatThrownBy(() -> foreign.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(Thread.currentThread().getName());
            assertThatThrownBy(() -> server.awaitWork(1, TimeUnit.MILLISECONDS))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("poller threads");
        } finally {
            other.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(IdleStrategy.class)
    void idleWithoutBlockingTakesTheIdleStrategysStepsShortOfBlocking(IdleStrategy strategy) throws Exception {
        try (RdmaRuntime runtime = RdmaRuntime.builder().pollerThreads(0).idleStrategy(strategy)
                .threadNamePrefix("invoked-test-idle").build()) {
            InvokedPoller owned = runtime.invokedPoller(0);
            int firstRun = idleStepsBeforeBlocking(owned);
            switch (strategy) {
                case BLOCKING -> assertThat(firstRun).isZero(); // its wait returns at once while there is work
                case BACKOFF -> {
                    assertThat(firstRun).isBetween(1, IDLE_STEP_LIMIT - 1);
                    assertThat(owned.idleWithoutBlocking(0)).as("still idle: blocks again").isFalse();
                    assertThat(owned.idleWithoutBlocking(1)).as("a poll that did work").isTrue();
                    assertThat(idleStepsBeforeBlocking(owned)).as("a new run of idle polls").isEqualTo(firstRun);
                }
                case BUSY_SPIN, YIELD -> assertThat(firstRun).isEqualTo(IDLE_STEP_LIMIT);
            }
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                Future<?> foreign = other.submit(() -> owned.idleWithoutBlocking(0));
                assertThatThrownBy(() -> foreign.get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(IllegalStateException.class);
            } finally {
                other.shutdownNow();
            }
        }
    }

    /** Well past BACKOFF's run of spins and yields (220), and short enough for YIELD's steps on a busy machine. */
    private static final int IDLE_STEP_LIMIT = 1_000;

    /** How many idle steps the strategy takes before it would block, up to {@link #IDLE_STEP_LIMIT}. */
    private static int idleStepsBeforeBlocking(InvokedPoller poller) {
        int steps = 0;
        while (steps < IDLE_STEP_LIMIT && poller.idleWithoutBlocking(0)) {
            steps++;
        }
        return steps;
    }

    @Test
    void awaitWorkReturnsAtOnceWhenTheOwnerHandedTheRuntimeAnOperation() throws Exception {
        // An event loop that waits before it polls (Netty's RdmaIoHandler, where it blocks) relies on this: its own
        // posts since the last poll are work, though no other thread handed them over and no event will announce them.
        RdmaConnection c = connectToAcceptingServer();
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        while (client.poll() > 0) {
            // settle: nothing left from the connect
        }
        c.receive(local.slice(0, 64)); // queued on the owner's own queue, for the next poll
        long start = System.nanoTime();
        client.awaitWork(30, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(client.poll()).isPositive();
    }

    @Test
    void awaitWorkReturnsAtOnceWhenADeadlineIsDue() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (RdmaRuntime timed = RdmaRuntime.builder().pollerThreads(0).ticker(ticker).build();
             ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<RdmaConnection> f = timed.connector()
                    .connect(new InetSocketAddress(silent.getInetAddress(), silent.getLocalPort()))
                    .withTimeout(Duration.ofMillis(300)).start();
            while (timed.poll() > 0) {
                // the connect's commands run; the silent peer answers nothing
            }
            ticker.advance(Duration.ofSeconds(1));
            long start = System.nanoTime();
            timed.awaitWork(30, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            timed.poll();
            assertThat(f).isCompletedExceptionally();
            assertThatThrownBy(f::join).hasCauseInstanceOf(RdmaException.class)
                    .extracting(e -> ((RdmaException) e.getCause()).status()).isEqualTo(Status.IO_TIMEOUT);
        }
    }

    @Test
    void awaitWorkReturnsWhenAConnectEventArrives() {
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(r -> r.accept());
        CompletableFuture<RdmaConnection> connect = client.connector().connect(listener.localAddress()).start();
        long start = System.nanoTime();
        while (!connect.isDone() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(25)) {
            if (client.poll() == 0) {
                client.awaitWork(30, TimeUnit.SECONDS); // only the connect's own events end these waits
            }
        }
        assertThat(connect).isCompletedWithValueMatching(RdmaConnection::isConnected);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    }

    /** The client connected to a server that accepts every request; the owner's get() drives the client. */
    private RdmaConnection connectToAcceptingServer() throws Exception {
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(r -> r.accept());
        return client.connector().connect(listener.localAddress()).start().get(10, TimeUnit.SECONDS);
    }
}
