package dev.rdmafutures.internal;

import dev.rdmafutures.PollerMetrics;
import dev.rdmafutures.internal.poller.Poller;
import dev.rdmafutures.internal.poller.PollerProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A runtime's pollers and who drives them: each its own thread, or, invoked ({@code pollerThreads(0)}), the thread
 * that built the runtime (one poller) or the thread that claimed each (several); and which poller new work goes to.
 * The rules of ownership live in {@link Poller}; this class applies them to the set.
 */
final class PollerSet {
    private final List<Poller> pollers;
    private final boolean invoked;
    private final AtomicInteger next = new AtomicInteger();

    PollerSet(List<Poller> pollers, boolean invoked) {
        this.pollers = List.copyOf(pollers);
        this.invoked = invoked;
    }

    void start() {
        pollers.forEach(Poller::start);
    }

    boolean invoked() {
        return invoked;
    }

    /**
     * One duty cycle of each poller the calling thread drives: the only one, or of several those it claimed.
     *
     * @throws IllegalStateException when the runtime has poller threads, or the caller drives none
     */
    int poll() {
        requireInvoked("poll()");
        if (pollers.size() == 1) {
            return pollers.get(0).invoke(); // refuses any thread but the owner, naming it
        }
        Thread caller = Thread.currentThread();
        int work = 0;
        boolean owns = false;
        // By index: an iterator per call is garbage in every spin of a wait unless C2 has compiled this away.
        for (int i = 0; i < pollers.size(); i++) {
            Poller p = pollers.get(i);
            if (p.owner() == caller) {
                owns = true;
                work += p.invoke();
            }
        }
        if (!owns) {
            throw notAnOwner();
        }
        return work;
    }

    /**
     * Blocks the caller on its poller until there is work, a wake-up, or {@code maxNanos}.
     *
     * @throws IllegalStateException when the runtime has poller threads, or the caller drives none
     */
    void awaitWork(long maxNanos) {
        requireInvoked("awaitWork()");
        if (pollers.size() == 1) {
            pollers.get(0).awaitWork(maxNanos);
            return;
        }
        Poller own = owned();
        if (own == null) {
            throw notAnOwner();
        }
        own.awaitWork(maxNanos);
    }

    /** Wakes every invoked poller's owner out of its wait, or makes its next one return. */
    void wakeUp() {
        if (invoked) {
            pollers.forEach(Poller::wakeup);
        }
    }

    /**
     * Makes the calling thread the owner of invoked poller {@code index}.
     *
     * @throws IllegalStateException when another thread owns it, or the caller drives another poller of the set
     */
    void claim(int index) {
        Poller wanted = invokedPoller(index);
        Poller own = owned();
        if (own != null && own != wanted) {
            // A thread waits on one poller at a time: work for a second could not wake it.
            throw new IllegalStateException("thread '" + Thread.currentThread().getName() + "' drives "
                    + own.name() + " already; each thread drives one of this runtime's pollers");
        }
        wanted.claim();
    }

    /**
     * Stops invoked poller {@code index} on its owner; see {@code InvokedPoller.close}.
     *
     * @throws IllegalStateException when the caller is not its owner
     */
    void close(int index, Duration timeout) {
        Poller p = invokedPoller(index);
        if (!p.inPollerThread()) {
            throw new IllegalStateException("only the owner of " + p.name() + " stops it, not thread '"
                    + Thread.currentThread().getName() + "'");
        }
        p.close(timeout);
    }

    /** Invoked poller {@code index}, validated. */
    Poller invokedPoller(int index) {
        if (!invoked) {
            throw new IllegalStateException("this runtime has poller threads; only a pollerThreads(0) runtime has "
                    + "pollers the application drives");
        }
        if (index < 0 || index >= pollers.size()) {
            throw new IllegalArgumentException("invoked poller " + index + " of 0.." + (pollers.size() - 1));
        }
        return pollers.get(index);
    }

    /**
     * Makes {@code next} the owner of the one invoked poller; called by its owner.
     *
     * @throws IllegalStateException with poller threads or several invoked pollers, or from a thread not the owner
     */
    void handOver(Thread nextOwner) {
        Objects.requireNonNull(nextOwner, "next owner");
        if (!invoked) {
            throw new IllegalStateException("this runtime has poller threads; only a pollerThreads(0) runtime has an "
                    + "owner to hand over");
        }
        if (pollers.size() > 1) {
            throw new IllegalStateException("this runtime's " + pollers.size() + " pollers are each claimed by the "
                    + "thread that drives it; none is handed over");
        }
        pollers.get(0).handOver(nextOwner);
    }

    /** The owner of the first invoked poller; null with poller threads, or when no thread claimed it. */
    Thread owner() {
        return invoked ? pollers.get(0).owner() : null;
    }

    /** The poller the calling thread drives, or null. */
    Poller owned() {
        Thread caller = Thread.currentThread();
        for (int i = 0; i < pollers.size(); i++) {
            if (pollers.get(i).owner() == caller) {
                return pollers.get(i);
            }
        }
        return null;
    }

    /**
     * The poller new work goes to: of several invoked pollers, the caller's own when it drives one, so that what its
     * thread starts completes on it with no hand-off to another owner's thread; otherwise the next, round robin.
     */
    PollerProxy next() {
        if (invoked && pollers.size() > 1) {
            Poller own = owned();
            if (own != null) {
                return own.proxy();
            }
        }
        return pollers.get(Math.floorMod(next.getAndIncrement(), pollers.size())).proxy();
    }

    List<PollerMetrics> metrics() {
        List<PollerMetrics> duty = new ArrayList<>(pollers.size());
        for (Poller p : pollers) {
            duty.add(p.metrics());
        }
        return duty;
    }

    /** Stops every poller; whether all stopped within {@code timeout} (or are the caller's own). */
    boolean close(Duration timeout) {
        boolean allStopped = true;
        for (Poller p : pollers) {
            allStopped &= p.close(timeout) || p.inPollerThread();
        }
        return allStopped;
    }

    private void requireInvoked(String call) {
        if (!invoked) {
            throw new IllegalStateException("this runtime has poller threads; " + call + " is for pollerThreads(0)");
        }
    }

    private IllegalStateException notAnOwner() {
        return new IllegalStateException("thread '" + Thread.currentThread().getName() + "' drives none of the "
                + pollers.size() + " pollers of this runtime; a thread claims one with invokedPoller(i).claim()");
    }
}
