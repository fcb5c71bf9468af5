package dev.rdmafutures;

/**
 * The time source of a runtime's deadlines (connect, handshake, disconnect and liveness timeouts, and every timer a
 * provider schedules on its poller), read as nanoseconds from an arbitrary origin, like {@link System#nanoTime()}.
 * The default is {@link #system()}; a test gives {@link RdmaRuntime.Builder#ticker(Ticker)} one it advances itself
 * (Caffeine's {@code Ticker}), so that a timeout is reached without waiting for it.
 *
 * <p>A poller reads it once or twice per duty cycle, on its own thread; it must be cheap, thread-safe and never
 * go backwards. Only the deadlines follow it: a poller still sleeps and wakes in real time, so a test that
 * advances a ticker drives the runtime itself ({@code pollerThreads(0)} and {@link RdmaRuntime#poll()}) or waits
 * for the next duty cycle. A future's bounded {@code get} waits in real time.
 */
@FunctionalInterface
public interface Ticker {
    /** Nanoseconds from an arbitrary, fixed origin. */
    long read();

    /** {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
