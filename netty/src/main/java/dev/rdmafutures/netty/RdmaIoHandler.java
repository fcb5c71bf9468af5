package dev.rdmafutures.netty;

import dev.rdmafutures.Access;
import dev.rdmafutures.InvokedPoller;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.RemoteBuffer;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Netty 4.2's {@link IoHandler} for RDMA: each event loop drives one poller of an application-driven
 * {@link RdmaRuntime} ({@code pollerThreads(0)}), claimed on the loop's thread, and every {@link #run} is one of its
 * duty cycles. So the poller's completions, connection events and the channels' pipelines all run on that one thread,
 * with no hand-off per message. A loop with no task follows the runtime's idle strategy
 * ({@link InvokedPoller#idleWithoutBlocking}): it polls again after a spin or a yield, or, where the strategy blocks,
 * it waits in {@link InvokedPoller#awaitWork} until the provider has work, a task arrives ({@link #wakeup()}), or
 * Netty's next scheduled task is due.
 *
 * <p>The loops of an {@link RdmaEventLoopGroup} share one runtime, a poller each ({@link GroupRuntime});
 * {@link #newFactory(Consumer)} serves a {@code MultiThreadIoEventLoopGroup} of one's own, with a runtime per loop.
 */
public final class RdmaIoHandler implements IoHandler {
    private static final int PROBE_BYTES = 8;
    private final ThreadAwareExecutor executor;
    private final GroupRuntime group;
    /** Which of the group's runtime's invoked pollers this loop drives. */
    private final int index;
    private final Set<RdmaIoHandle> handles = new LinkedHashSet<>();
    private volatile RdmaRuntime runtime;
    /** This loop's poller of the runtime; set in {@link #initialize()}, read by {@link #wakeup()} on any thread. */
    private volatile InvokedPoller poller;
    /**
     * The loop waits, or is about to: the first task from another thread wakes it and clears this, so that later
     * ones, and every task while the loop is awake (it looks at its queue before it waits), cost no system call.
     */
    private final AtomicBoolean waiting = new AtomicBoolean();
    /** Whether a poll did work since the idle strategy's last step, which then starts a new run. Loop thread only. */
    private boolean workedSinceIdleStep;
    /** The default allocator of this loop's channels, over memory its runtime registered. */
    private volatile RegisteredBufferAllocator allocator;
    /** The liveness probes' bytes: the target peers READ, then this loop's sink; see {@link #probeTarget()}. */
    private MemoryRegion probeRegion;

    RdmaIoHandler(ThreadAwareExecutor executor, GroupRuntime group, int index) {
        this.executor = executor;
        this.group = group;
        this.index = index;
    }

    /** Handlers whose runtimes have the defaults of {@link RdmaRuntime#builder()} (provider {@code soft}). */
    public static IoHandlerFactory newFactory() {
        return newFactory(builder -> { });
    }

    /**
     * Handlers with a runtime each, which {@code configuration} sets up (provider, timeouts, ticker...); it runs once
     * per event loop, on the loop's thread. {@code pollerThreads} is always 0: the event loop is the runtime's poller.
     * Set no {@code completionExecutor}: the channels' completions must run on their event loop (one that runs
     * elsewhere fails with {@link IllegalStateException}, which the runtime logs). A server channel's connections
     * stay on its loop; {@link RdmaEventLoopGroup} shares one runtime among its loops instead.
     */
    public static IoHandlerFactory newFactory(Consumer<RdmaRuntime.Builder> configuration) {
        Objects.requireNonNull(configuration, "configuration");
        return executor -> new GroupRuntime(1, configuration).factory().newHandler(executor);
    }

    @Override
    public void initialize() {
        RdmaRuntime r = group.join();
        InvokedPoller p = r.invokedPoller(index);
        p.claim(); // this thread, the event loop's, drives it from now on
        runtime = r;
        poller = p;
        allocator = new RegisteredBufferAllocator(r, ByteBufAllocator.DEFAULT);
    }

    @Override
    public int run(IoHandlerContext context) {
        InvokedPoller p = poller;
        // The runtime's idle strategy first: it may spin or yield between polls, and Netty looks at its task queue
        // between them, so a task waits for no wake-up; where it would block, the loop waits below. It hears of work
        // done in turns that had tasks too, as a poller thread's strategy hears of every cycle's.
        if (context.canBlock() && !idleWithoutBlocking(p)) {
            // Published before the tasks are looked at again: a task queued before this is seen by canBlock() below,
            // and one queued after it finds the flag set and wakes the wait.
            waiting.set(true);
            try {
                if (context.canBlock()) {
                    // Wait, then poll once after, as Netty's own loops select (BLOCKING waits at once: a poll before
                    // the wait would look at the sockets or queues the wait looks at anyway). The wait returns at once
                    // when the runtime already has work: operations handed to it, a deadline due, completions or
                    // bytes ready.
                    p.awaitWork(context.delayNanos(System.nanoTime()), TimeUnit.NANOSECONDS);
                }
            } finally {
                waiting.lazySet(false); // awake: a waker that still sees the flag only costs one spare turn
            }
        }
        int work = p.poll();
        if (work > 0) {
            workedSinceIdleStep = true;
        }
        return work;
    }

    /** The idle strategy's step, told whether any poll did work since its last step. */
    private boolean idleWithoutBlocking(InvokedPoller p) {
        boolean worked = workedSinceIdleStep;
        workedSinceIdleStep = false;
        return p.idleWithoutBlocking(worked ? 1 : 0);
    }

    /**
     * {@inheritDoc} Only for another thread, and only once while the loop waits or is about to (the protocol of
     * Netty's epoll and io_uring loops): Netty asks on every task it queues, also from the loop itself, and each
     * wake-up costs the waker a write and the loop a read, besides a turn of its own when the loop was not waiting.
     */
    @Override
    public void wakeup() {
        InvokedPoller p = poller;
        if (p != null // before initialize() the loop has not blocked yet
                && !executor.isExecutorThread(Thread.currentThread()) && waiting.getAndSet(false)) {
            p.wakeUp();
        }
    }

    @Override
    public void prepareToDestroy() {
        for (RdmaIoHandle handle : new ArrayList<>(handles)) {
            handle.close();
        }
        handles.clear();
    }

    @Override
    public void destroy() {
        try {
            RegisteredBufferAllocator a = allocator;
            if (a != null) {
                a.close();
            }
            InvokedPoller p = poller;
            if (p != null) {
                p.close(); // this loop's connections end here, on their thread, while the group's other loops go on
            }
        } finally {
            group.leave(); // the group's last loop closes the runtime
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        if (!(handle instanceof RdmaIoHandle rdmaHandle)) {
            throw new IllegalArgumentException("an RDMA event loop registers RDMA channels, not "
                    + handle.getClass().getName());
        }
        handles.add(rdmaHandle);
        return new Registration(rdmaHandle);
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    /** The default allocator of this loop's channels; after {@link #initialize()}. */
    RegisteredBufferAllocator allocator() {
        return allocator;
    }

    /** The runtime this loop drives a poller of; on the loop's thread, after {@link #initialize()}. */
    RdmaRuntime runtime() {
        return runtime;
    }

    /**
     * The handler of the loop whose thread calls, of this one's group: where a listener's request or connection lands
     * when the runtime dealt it to another loop than the listener's. This one when the caller is no loop of the group.
     */
    RdmaIoHandler onCurrentThread() {
        RdmaIoHandler here = group.onCurrentThread();
        return here != null ? here : this;
    }

    /**
     * What this loop's streams offer their peers to READ when a peer has heard nothing for a while
     * ({@link ByteStream#probe()}): 8 bytes of zeros, registered once per loop (on its thread, at the first use),
     * shared by its streams, released with the runtime. Holds nothing an application wrote.
     */
    RemoteBuffer probeTarget() {
        return probeRegion().remote().slice(0, PROBE_BYTES);
    }

    /** Where this loop's streams READ their peers' probe targets into; what lands there is never looked at. */
    RegionSlice probeSink() {
        return probeRegion().slice(PROBE_BYTES, PROBE_BYTES);
    }

    private MemoryRegion probeRegion() {
        if (probeRegion == null) {
            probeRegion = runtime.register(ByteBuffer.allocateDirect(2 * PROBE_BYTES), Access.LOCAL_WRITE,
                    Access.REMOTE_READ);
        }
        return probeRegion;
    }

    /** The event loop that runs this handler. */
    ThreadAwareExecutor executor() {
        return executor;
    }

    private final class Registration implements IoRegistration {
        private final RdmaIoHandle handle;
        private volatile boolean valid = true;

        Registration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) RdmaIoHandler.this;
        }

        @Override
        public long submit(IoOps ops) {
            throw new UnsupportedOperationException("RDMA channels submit no IoOps; their runtime drives them");
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public boolean cancel() {
            if (!valid) {
                return false;
            }
            valid = false;
            if (executor.isExecutorThread(Thread.currentThread())) {
                handles.remove(handle);
            } else {
                executor.execute(() -> handles.remove(handle));
            }
            return true;
        }
    }
}
