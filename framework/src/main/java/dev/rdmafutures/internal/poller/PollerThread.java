package dev.rdmafutures.internal.poller;

/** The thread a {@link Poller} runs on; its type lets futures detect a blocking call from a poller. */
public final class PollerThread extends Thread {
    PollerThread(Runnable agent, String name) {
        super(agent, name);
        setDaemon(true);
    }

    /** Whether the calling thread is a poller thread of any runtime. */
    public static boolean isCurrent() {
        return Thread.currentThread() instanceof PollerThread;
    }
}
