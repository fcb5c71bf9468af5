package dev.rdmafutures.samples;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A busy-polling server thread that sleeps while the other side is measured: the demo's comparisons run one side at
 * a time, as a spinning server of the side not measured would take a core.
 */
final class ServerThread implements AutoCloseable {
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    /** One turn of the server's loop, e.g. polling its runtime or its sockets once. */
    interface Step {
        void run() throws Exception;
    }

    final Thread thread;
    private volatile boolean running;
    /** Turns the thread has slept since it started; only it writes them. */
    private volatile long sleeps;
    private volatile boolean closed;
    private volatile Throwable failure;

    /** Starts the thread asleep; {@link #resume()} sets it spinning. */
    ServerThread(String name, Step step) {
        thread = new Thread(() -> {
            try {
                while (!closed) {
                    if (running) {
                        step.run();
                    } else {
                        sleeps++;
                        LockSupport.park(this); // no timed wake-ups: they would take turns on the measured cores
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    void resume() {
        running = true;
        LockSupport.unpark(thread);
    }

    /**
     * Stops the spinning and waits until the thread has seen it stop, so that it runs no further step. The count
     * is read before the flag is cleared: read after, it could already hold the sleep it waits for, and the wait
     * would never end (CI saw this once).
     */
    void pause() throws Exception {
        long seen = sleeps;
        running = false;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (sleeps == seen && failure == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(thread.getName() + " did not stop within 15 s");
            }
            Thread.onSpinWait();
        }
        if (failure != null) {
            throw new IllegalStateException(thread.getName() + " failed", failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        LockSupport.unpark(thread);
        thread.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
    }
}
