package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.conformance.ManualTicker;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Admission}: a post without a free slot waits for one in arrival order, bounded in time and in waiters, and
 * ends with its connection; the default refuses at once. The client runtime is application-driven where a test needs
 * nothing to move until it polls.
 */
class AdmissionTest {
    private final List<AutoCloseable> opened = new ArrayList<>();
    private RdmaRuntime server;

    @AfterEach
    void close() throws Exception {
        Collections.reverse(opened);
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        opened.add(resource);
        return resource;
    }

    private RdmaListener serve(int initiatorDepth, int receiveDepth) {
        server = closeLater(RdmaRuntime.builder().threadNamePrefix("admission-server").build());
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.onRequest(r -> r.withQueueDepths(initiatorDepth, receiveDepth).withReadLimits(16, 16).accept());
        return listener;
    }

    private static RdmaConnection connect(RdmaRuntime client, RdmaListener listener, int initiator, int receive) {
        return client.connector().connect(listener.localAddress()).withQueueDepths(initiator, receive)
                .withReadLimits(16, 16).start().join();
    }

    private static RdmaException errorOf(CompletableFuture<?> failed) {
        Throwable t = failed.handle((v, e) -> e).join();
        assertThat(t).as("failed").isNotNull();
        Throwable cause = t instanceof CompletionException ? t.getCause() : t;
        assertThat(cause).isInstanceOf(RdmaException.class);
        return (RdmaException) cause;
    }

    private static Status statusOf(CompletableFuture<?> failed) {
        return errorOf(failed).status();
    }

    @Test
    void theBuilderValidatesTheAdmissionAndTheDefaultFailsFast() {
        assertThat(Admission.failFast().waits()).isFalse();
        Admission waiting = Admission.waitForSlot(Duration.ofSeconds(2), 100);
        assertThat(waiting.waits()).isTrue();
        assertThat(waiting.maxWait()).isEqualTo(Duration.ofSeconds(2));
        assertThat(waiting.maxWaiters()).isEqualTo(100);
        assertThat(waiting).isEqualTo(Admission.waitForSlot(Duration.ofSeconds(2), 100));
        assertThatThrownBy(() -> Admission.waitForSlot(Duration.ZERO, 1)).isInstanceOf(RdmaException.class)
                .extracting(e -> ((RdmaException) e).status()).isEqualTo(Status.INVALID_PARAMETER);
        assertThatThrownBy(() -> Admission.waitForSlot(Duration.ofSeconds(1), 0)).isInstanceOf(RdmaException.class)
                .extracting(e -> ((RdmaException) e).status()).isEqualTo(Status.INVALID_PARAMETER);
        assertThatThrownBy(() -> Admission.waitForSlot(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RdmaRuntime.builder().admission(null)).isInstanceOf(NullPointerException.class);

        RdmaListener listener = serve(4, 4);
        RdmaRuntime client = closeLater(RdmaRuntime.builder().pollerThreads(0).build());
        RdmaConnection c = connect(client, listener, 1, 1);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        CompletableFuture<Completion> first = c.receive(local.slice(0, 8));
        CompletableFuture<Completion> second = c.receive(local.slice(8, 8));
        assertThat(second).isCompletedExceptionally(); // at once, before any poll
        assertThat(statusOf(second)).isEqualTo(Status.INSUFFICIENT_RESOURCES);
        assertThat(first).isNotDone();
    }

    @Test
    void operationsWithoutASlotWaitAndAreAdmittedInArrivalOrder() {
        RdmaListener listener = serve(4, 4);
        MemoryRegion remote = server.register(ByteBuffer.allocateDirect(64), Access.REMOTE_READ);
        for (int i = 0; i < 64; i++) {
            remote.buffer().put(i, (byte) i);
        }
        RdmaRuntime client = closeLater(RdmaRuntime.builder().pollerThreads(0)
                .admission(Admission.waitForSlot(Duration.ofSeconds(30), 8)).build());
        RdmaConnection c = connect(client, listener, 1, 1);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Completion>> reads = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int n = i;
            reads.add(c.read(local.slice(8 * i, 8), remote.remote(), 8 * i, OperationFlags.NONE));
            reads.get(i).thenRun(() -> order.add(n));
        }
        // Nothing moved yet (nobody polled): one READ holds the only slot, five wait, none refused.
        assertThat(c.availableInitiatorSlots()).isZero();
        assertThat(reads).noneMatch(CompletableFuture::isDone);
        reads.forEach(CompletableFuture::join); // each join drives the runtime on this thread; allOf's would not
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
        for (int i = 0; i < 48; i++) {
            assertThat(local.buffer().get(i)).isEqualTo((byte) i);
        }
        assertThat(c.availableInitiatorSlots()).isEqualTo(1);
        // A post after them finds a free slot and goes straight on.
        assertThat(c.read(local.slice(0, 8), remote.remote(), 0, OperationFlags.NONE).join().bytes()).isEqualTo(8);
    }

    @Test
    void aWaitEndsInsufficientResourcesWhenTheTickerPassesItsBoundAndNotBefore() {
        RdmaListener listener = serve(4, 4);
        ManualTicker ticker = new ManualTicker();
        RdmaRuntime client = closeLater(RdmaRuntime.builder().pollerThreads(0).ticker(ticker)
                .admission(Admission.waitForSlot(Duration.ofSeconds(1), 8)).build());
        RdmaConnection c = connect(client, listener, 1, 1);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        CompletableFuture<Completion> holder = c.receive(local.slice(0, 8)); // the peer never sends: it keeps its slot
        CompletableFuture<Completion> waiter = c.receive(local.slice(8, 8));
        runCycles(client, 10);
        ticker.advance(Duration.ofMillis(999));
        runCycles(client, 10);
        assertThat(waiter).isNotDone();
        ticker.advance(Duration.ofMillis(2));
        runCycles(client, 10);
        assertThat(waiter).isCompletedExceptionally();
        assertThat(statusOf(waiter)).isEqualTo(Status.INSUFFICIENT_RESOURCES);
        assertThat(errorOf(waiter)).hasMessageContaining("waited 1000 ms");
        assertThat(holder).isNotDone();
        assertThat(c.isConnected()).isTrue();
        assertThat(c.availableReceiveSlots()).isZero(); // the waiter never held one, so gave none back
    }

    @Test
    void postsBeyondTheWaitersBoundAreRefusedAtOnceAndWaitersEndCanceledWithTheirConnection() {
        RdmaListener listener = serve(4, 4);
        RdmaRuntime client = closeLater(RdmaRuntime.builder().pollerThreads(0)
                .admission(Admission.waitForSlot(Duration.ofSeconds(30), 2)).build());
        RdmaConnection c = connect(client, listener, 1, 1);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        CompletableFuture<Completion> holder = c.receive(local.slice(0, 8));
        CompletableFuture<Completion> first = c.receive(local.slice(8, 8));
        CompletableFuture<Completion> second = c.receive(local.slice(16, 8));
        CompletableFuture<Completion> refused = c.receive(local.slice(24, 8));
        assertThat(refused).isCompletedExceptionally();
        assertThat(statusOf(refused)).isEqualTo(Status.INSUFFICIENT_RESOURCES);
        assertThat(errorOf(refused)).hasMessageContaining("2 operations already wait");
        runCycles(client, 10);
        assertThat(List.of(holder, first, second)).noneMatch(CompletableFuture::isDone);
        c.disconnect().join();
        assertThat(statusOf(holder)).isEqualTo(Status.CANCELED);
        assertThat(statusOf(first)).isEqualTo(Status.CANCELED);
        assertThat(statusOf(second)).isEqualTo(Status.CANCELED);
        assertThat(c.availableReceiveSlots()).isEqualTo(1);
    }

    @Test
    void closingTheRuntimeEndsItsWaitersCanceled() {
        RdmaListener listener = serve(4, 4);
        RdmaRuntime client = RdmaRuntime.builder().threadNamePrefix("admission-client")
                .admission(Admission.waitForSlot(Duration.ofSeconds(30), 8)).build();
        RdmaConnection c = connect(client, listener, 1, 1);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
        CompletableFuture<Completion> holder = c.receive(local.slice(0, 8));
        CompletableFuture<Completion> waiter = c.receive(local.slice(8, 8));
        client.close();
        assertThat(holder).isCompletedExceptionally();
        assertThat(waiter).isCompletedExceptionally();
        assertThat(statusOf(waiter)).isEqualTo(Status.CANCELED);
    }

    /**
     * Many threads each blocking on its own READs of one connection, the way a JDK 21+ application writes it: with
     * virtual threads (when this JDK has them) 10,000 threads on a depth of 4,096, otherwise 1,000 platform threads
     * on a depth of 64; both many times the depth, and every READ completes with the right bytes.
     */
    @Test
    void thousandsOfThreadsBlockingOnOneConnectionAllCompleteWhenPostsWaitForASlot() throws Exception {
        ThreadFactory virtual = virtualThreadFactory();
        int threads = virtual != null ? 10_000 : 1_000;
        int depth = virtual != null ? 4_096 : 64;
        int readsEach = 20;
        int size = 64;
        RdmaListener listener = serve(4, 4);
        int slots = 1024;
        MemoryRegion remote = server.register(ByteBuffer.allocateDirect(slots * size), Access.REMOTE_READ);
        for (int i = 0; i < slots * size; i++) {
            remote.buffer().put(i, (byte) (i * 7 + i / size));
        }
        RdmaRuntime client = closeLater(RdmaRuntime.builder().threadNamePrefix("admission-client")
                .admission(Admission.waitForSlot(Duration.ofSeconds(60), threads)).build());
        RdmaConnection c = connect(client, listener, depth, 4);
        MemoryRegion local = client.register(ByteBuffer.allocateDirect(threads * size), Access.LOCAL_WRITE);
        AtomicLong wrongBytes = new AtomicLong();
        ExecutorService pool = virtual != null ? newThreadPerTask(virtual)
                : Executors.newFixedThreadPool(threads, r -> new Thread(r, "admission-reader"));
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < readsEach; i++) {
                        int slot = (thread * readsEach + i) % slots;
                        Completion r = c.read(local.slice(thread * size, size), remote.remote(), (long) slot * size,
                                OperationFlags.NONE)
                                .get(60, TimeUnit.SECONDS);
                        assertThat(r.bytes()).isEqualTo(size);
                        for (int b = 0; b < size; b++) {
                            int at = slot * size + b;
                            if (local.buffer().get(thread * size + b) != (byte) (at * 7 + at / size)) {
                                wrongBytes.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS); // a refused or failed READ fails here with its status
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(wrongBytes.get()).isZero();
        assertThat(c.metrics().operations().completed()).isGreaterThanOrEqualTo((long) threads * readsEach);
    }

    /** Runs {@code cycles} duty cycles of an application-driven runtime on this, its owning thread. */
    private static void runCycles(RdmaRuntime runtime, int cycles) {
        for (int i = 0; i < cycles; i++) {
            runtime.poll();
        }
    }

    /** {@code Thread.ofVirtual().factory()} on a JDK that has it (21+), else null; this module builds for 17. */
    private static ThreadFactory virtualThreadFactory() {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            Method factory = builder.getClass().getMethod("factory");
            factory.setAccessible(true);
            return (ThreadFactory) factory.invoke(builder);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static ExecutorService newThreadPerTask(ThreadFactory factory) throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
                .invoke(null, factory);
    }
}
