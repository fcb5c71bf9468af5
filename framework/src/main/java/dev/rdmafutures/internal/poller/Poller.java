package dev.rdmafutures.internal.poller;

import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.Ticker;
import dev.rdmafutures.spi.Cancellable;
import dev.rdmafutures.spi.EventLoop;
import dev.rdmafutures.spi.PollerContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One poller: a thread running a duty cycle of (commands from other threads, the provider's event loop, due
 * deadlines), then its idle strategy. The event loop and everything reachable from it are confined to this thread;
 * other threads reach them only through {@link #execute(Runnable)} (Aeron's Sender/SenderProxy split).
 *
 * <p>Sleeping without losing a wake-up: before blocking the poller publishes {@code sleeping}, re-checks its
 * command queue, then blocks; a submitter enqueues, then wakes the event loop only if it saw {@code sleeping}.
 *
 * <p>Past 450 lines on purpose: the duty cycle, an invoked poller's ownership (claim, hand-over) and its close share
 * the owner field and the cycle gate, which a split would have to expose to each part.
 */
public final class Poller implements PollerContext {
    private static final Logger LOG = LoggerFactory.getLogger(Poller.class);
    private static final int COMMANDS_PER_CYCLE = 256;
    private static final AtomicReferenceFieldUpdater<Poller, Thread> OWNER =
            AtomicReferenceFieldUpdater.newUpdater(Poller.class, Thread.class, "owner");

    private final String name;
    private final CommandQueues commands;
    private final Deadlines deadlines = new Deadlines();
    private final DutyCycleErrors errors;
    private final PeerFaultSink peerFaults;
    private final Idler idler;
    /** The thread of a threaded poller; null when the application drives it with {@link #invoke()}. */
    private final PollerThread thread;
    /**
     * The one thread that owns the event loop: the poller thread, or the invoked poller's current owner; null for an
     * invoked poller no thread has claimed yet ({@link #claim()}).
     */
    private volatile Thread owner;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final EventLoop loop;
    private final PollerProxy proxy;
    private volatile boolean sleeping;
    private volatile boolean running = true;
    /** An invoked poller's turns between its owner and a closing thread; a threaded poller leaves it open. */
    private final CycleGate cycle = new CycleGate();
    /** Duty-cycle counters: written by the owner alone (release stores, no fence), read by any thread. */
    private final AtomicLong dutyCycles = new AtomicLong();
    private final AtomicLong workCycles = new AtomicLong();
    private final AtomicLong busyNanos = new AtomicLong();
    /** The clock of the deadlines (the runtime's Ticker); the duty-cycle counters keep real time. */
    private final Ticker ticker;
    private final long startedAt = System.nanoTime();

    /**
     * Creates a poller; {@code loopFactory} is called once, here, to create the event loop it will own. Not
     * {@code invoked}, the poller runs on a thread of its own from {@link #start()}; invoked (Agrona's AgentInvoker),
     * its owner runs one duty cycle per {@link #invoke()}: {@code invokedBy}, until it hands the poller over with
     * {@link #handOver(Thread)}, or, when that is null, the first thread that {@linkplain #claim() claims} it (until
     * then its commands wait in their queues).
     */
    public Poller(String name, IdleStrategy idleStrategy, Ticker ticker, DutyCycleErrors errors,
                  PeerFaultSink peerFaults, Function<PollerContext, EventLoop> loopFactory, boolean invoked,
                  Thread invokedBy) {
        this.name = name;
        this.ticker = ticker;
        this.errors = errors;
        this.peerFaults = peerFaults;
        this.commands = new CommandQueues(errors);
        this.idler = Idler.of(idleStrategy, this::block);
        this.thread = invoked ? null : new PollerThread(this::run, name);
        this.owner = invoked ? invokedBy : thread;
        this.loop = loopFactory.apply(this);
        this.proxy = new PollerProxy(this);
    }

    /** The typed commands other threads hand this poller. */
    public PollerProxy proxy() {
        return proxy;
    }

    /** Starts the thread of a threaded poller. */
    public void start() {
        if (thread != null) {
            thread.start();
        }
    }

    /**
     * Runs one duty cycle on the calling thread (invoked pollers only); returns the work done. Only the owner may:
     * the event loop is confined to one thread.
     *
     * @throws IllegalStateException naming the owner, on any other thread
     */
    public int invoke() {
        if (Thread.currentThread() != owner) {
            throw notOwner();
        }
        if (cycle.isHeld()) {
            return running ? doWork() : 0; // a wait in a callback of this cycle, which holds the gate: poll nested
        }
        if (!running || !cycle.hold()) {
            return 0; // closing or closed
        }
        try {
            return doWork();
        } finally {
            releaseCycle();
        }
    }

    /**
     * Blocks the owner of an invoked poller until its event source has something ready, a thread hands it a command,
     * {@link #wakeup()} is called, or {@code maxNanos} pass; never past the poller's next deadline. Returns at once
     * when a command is already waiting or the poller is closing.
     *
     * @throws IllegalStateException naming the owner, on any other thread or on a threaded poller
     */
    public void awaitWork(long maxNanos) {
        requireInvokedOwner();
        if (cycle.isHeld()) { // a wait inside one of the owner's own cycles
            block(maxNanos);
            return;
        }
        // Held across the wait like a cycle: a close from another thread must not shut the loop down under a wait
        // that is still inside it (the verbs loop frees the descriptors it waits on); it wakes the wait instead,
        // and the owner shuts the loop down as the wait ends.
        if (!cycle.hold()) {
            return; // closing or closed
        }
        try {
            block(maxNanos);
        } finally {
            releaseCycle();
        }
    }

    /**
     * The idle strategy's step after an invoked poller's cycle that did {@code workCount}, short of blocking: spins or
     * yields and returns true, or returns false where the strategy blocks, and the owner then calls
     * {@link #awaitWork}.
     *
     * @throws IllegalStateException naming the owner, on any other thread or on a threaded poller
     */
    public boolean idleWithoutBlocking(int workCount) {
        requireInvokedOwner();
        return idler.idleWithoutBlocking(workCount);
    }

    private void requireInvokedOwner() {
        if (thread != null || Thread.currentThread() != owner) {
            throw notOwner();
        }
    }

    /** Makes a blocked or the next {@link #awaitWork} return at once. Thread-safe. */
    public void wakeup() {
        loop.wakeup();
    }

    /**
     * Makes {@code next} the owner of an invoked poller. Only the owner may hand it over; from this call on the old
     * owner's duty cycles are refused and {@code next}'s run (the volatile write publishes everything the old owner
     * did, its own command queue included).
     *
     * @throws IllegalStateException on a threaded poller, or from a thread that is not the owner
     */
    public void handOver(Thread next) {
        if (thread != null) {
            throw new IllegalStateException("poller " + name + " runs on its own thread; only an invoked poller is "
                    + "handed over");
        }
        if (Thread.currentThread() != owner) {
            throw notOwner();
        }
        owner = next;
    }

    /**
     * Makes the calling thread the owner of an invoked poller nobody owns yet; a no-op for its owner.
     *
     * @throws IllegalStateException on a threaded poller, or when another thread owns it (naming that thread)
     */
    public void claim() {
        if (thread != null) {
            throw new IllegalStateException("poller " + name + " runs on its own thread; only an invoked poller is "
                    + "claimed");
        }
        if (owner != Thread.currentThread() && !OWNER.compareAndSet(this, null, Thread.currentThread())) {
            throw notOwner();
        }
    }

    /** The thread that drives this poller: its own thread, or the owner of an invoked poller (null: none yet). */
    public Thread owner() {
        return owner;
    }

    private IllegalStateException notOwner() {
        Thread current = owner;
        if (current == null) {
            return new IllegalStateException("poller " + name + " is driven by no thread yet; a thread claims it "
                    + "first (InvokedPoller.claim())");
        }
        return new IllegalStateException("poller " + name + " is driven by thread '" + current.getName()
                + "', not '" + Thread.currentThread().getName() + "'"
                + (thread == null ? "; its owner hands it over (RdmaRuntime.handOver), unless it is one of several"
                        + " invoked pollers, each driven by the thread that claimed it" : ""));
    }

    /** The event loop this poller owns. Touch it only from {@link #execute(Runnable)} tasks. */
    public EventLoop eventLoop() {
        return loop;
    }

    /**
     * {@inheritDoc} From the owning thread itself (a completion callback posting its next operation, or the
     * application driving an invoked poller) the command goes to a thread-confined queue and runs in the next
     * command phase, never re-entering the event loop that is calling back.
     */
    @Override
    public boolean execute(Runnable command) {
        if (Thread.currentThread() == owner) {
            if (thread != null || cycle.isHeld()) { // nobody else can be stopping the loop meanwhile
                return commands.offerOwn(command);
            }
            // The owner of an invoked poller between its cycles holds the gate while it queues, so that a
            // close from another thread, which takes the gate to stop the loop and drain this queue, cannot
            // interleave: the command is queued before the stop (and runs then) or refused.
            if (!cycle.hold()) {
                return false;
            }
            try {
                return commands.offerOwn(command);
            } finally {
                releaseCycle();
            }
        }
        if (!commands.offer(command)) {
            return false;
        }
        if (sleeping) { // read after the offer: a poller about to sleep re-checks its queues after publishing it
            loop.wakeup();
        }
        return true;
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        assertOnPoller();
        return deadlines.schedule(ticker.read() + delay.toNanos(), task);
    }

    @Override
    public long nanoTime() {
        return ticker.read();
    }

    @Override
    public boolean inPollerThread() {
        return Thread.currentThread() == owner;
    }

    /**
     * Whether the caller is the one thread that may touch this poller's confined state now: its owner, or, once a
     * close began, the thread carrying it out (the owner is then outside its cycles or stopped).
     */
    public boolean confinedToCaller() {
        return inPollerThread() || !running;
    }

    @Override
    public void recordError(String where, Throwable error) {
        errors.record(where, error);
    }

    @Override
    public void peerFault(InetSocketAddress peer) {
        peerFaults.fault(peer.getAddress(), nanoTime());
    }

    private void assertOnPoller() {
        if (!inPollerThread()) {
            throw new IllegalStateException("poller state touched from " + Thread.currentThread().getName()
                    + "; only " + name + " may do that");
        }
    }

    private void run() {
        try {
            while (running) {
                idler.idle(doWork());
            }
        } catch (Throwable fatal) {
            LOG.error("poller {} stopped by an error it could not contain", name, fatal);
        } finally {
            shutDownOnThread();
        }
    }

    /**
     * One duty cycle, and the one place its order is kept; returns the work done, 0 when idle:
     * <ol>
     *   <li>the commands other threads handed over, then a flush: what they queued for the wire leaves before any
     *       event is read, so a lone operation waits for no socket or CQ;</li>
     *   <li>the event loop gathers what is ready, within its budget;</li>
     *   <li>when anything is, the commands handed over meanwhile run before it is dispatched: a command issued before
     *       an event was learnt of (a cancel before the peer's reply) goes first;</li>
     *   <li>the dispatch, then the deadlines that were due when the gather began: whatever had arrived by a deadline
     *       is acted on before it fires, even when the dispatch ran past it (a cold handler, a long callback), since a
     *       deadline that expires during the dispatch waits for the next cycle's gather (and a gather that did not
     *       look, {@link EventLoop#gatherLooked()}, leaves them to the next one that does);</li>
     *   <li>when any work was done, the commands issued meanwhile: a completion callback on this thread posts its next
     *       operation into the poller's own queue, and it runs here rather than one cycle later;</li>
     *   <li>one flush: what the cycle produced (the peer's responses, callbacks' next posts) leaves together, so a
     *       burst costs one write or doorbell.</li>
     * </ol>
     */
    int doWork() {
        long start = System.nanoTime();
        int work = runCommands();
        if (work > 0) {
            flushLoop();
        }
        long gatheredAt = ticker.read();
        boolean looked = true;
        try {
            if (loop.gather() > 0) {
                work += runCommands();
                work += loop.dispatch();
            }
            looked = loop.gatherLooked();
        } catch (Throwable t) {
            errors.record("event loop poll", t);
            work++;
        }
        if (looked) {
            work += deadlines.runDue(gatheredAt, errors);
        } else {
            work++; // nothing learnt, so not idle; the due deadlines wait for the next gather that looks
        }
        if (work > 0) {
            work += runCommands();
        }
        flushLoop();
        dutyCycles.lazySet(dutyCycles.get() + 1);
        if (work > 0) {
            workCycles.lazySet(workCycles.get() + 1);
            busyNanos.lazySet(busyNanos.get() + (System.nanoTime() - start));
        }
        return work;
    }

    private void flushLoop() {
        try {
            loop.flush();
        } catch (Throwable t) {
            errors.record("event loop flush", t);
        }
    }

    /** This poller's duty-cycle counters now. */
    public PollerMetrics metrics() {
        return new PollerMetrics(name, dutyCycles.get(), workCycles.get(), Duration.ofNanos(busyNanos.get()),
                Duration.ofNanos(System.nanoTime() - startedAt));
    }

    /** Runs the commands handed over so far, in order; returns how many ran. */
    private int runCommands() {
        return commands.run(COMMANDS_PER_CYCLE);
    }

    private void block(long maxNanos) {
        long wait = Math.min(maxNanos, deadlines.nanosUntilNext(ticker.read()));
        if (wait <= 0) {
            return;
        }
        sleeping = true;
        try {
            if (commands.isEmpty() && running) {
                loop.await(wait);
            }
        } catch (Throwable t) {
            errors.record("event loop await", t);
        } finally {
            sleeping = false;
        }
    }

    private void shutDownOnThread() {
        commands.close();
        try {
            loop.close();
        } catch (Throwable t) {
            errors.record("event loop close", t);
        }
        commands.drainAfterClose(); // commands that raced with the close: the closed loop fails their operations
        stopped.countDown();
        LOG.debug("poller {} stopped", name);
    }

    /**
     * Asks the poller to stop: it closes its event loop (failing what is outstanding), then its thread ends. An
     * invoked poller is stopped by the calling thread between its owner's cycles, or by the owner at the end of the
     * cycle it is in. Waits up to {@code timeout} unless called from the poller's own thread (or the owner).
     *
     * @return whether the loop had stopped (and a poller thread ended) within the timeout; from the poller's own
     *         thread, whether it stopped here (a threaded poller stops after the current cycle)
     */
    public boolean close(Duration timeout) {
        if (stopped.getCount() == 0 && (thread == null || !thread.isAlive())) {
            return true; // stopped already (an invoked poller its owner stopped): its loop is closed, nothing to wake
        }
        running = false;
        loop.wakeup();
        if (thread == null) {
            // Invoked: between the owner's cycles the closing thread stops the loop itself; during one, the owner
            // does at the cycle's end (never under a running poll()), and another thread waits for that.
            if (shutDownOnce() || inPollerThread()) {
                return stopped.getCount() == 0;
            }
        } else if (inPollerThread()) {
            return false;
        }
        try {
            boolean done = stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (done && thread != null) {
                thread.join(TimeUnit.NANOSECONDS.toMillis(timeout.toNanos()) + 1);
            }
            return done && (thread == null || !thread.isAlive());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The owner lets go of the gate; a close from another thread that met its turn is carried out here, on it. */
    private void releaseCycle() {
        cycle.release();
        if (!running) {
            shutDownOnce();
        }
    }

    /**
     * Stops an invoked poller's loop unless its owner is inside a cycle or it stopped already; whether this call
     * stopped it. Exactly one caller wins the transition, so the loop is shut down once, on one thread.
     */
    private boolean shutDownOnce() {
        if (!cycle.stop()) {
            return false;
        }
        shutDownOnThread();
        return true;
    }

    /** The poller thread's name. */
    public String name() {
        return name;
    }
}
