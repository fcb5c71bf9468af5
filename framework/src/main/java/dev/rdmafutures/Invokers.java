package dev.rdmafutures;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The runtimes each application thread drives itself ({@code pollerThreads(0)}): a thread that waits on a future
 * must run their duty cycles, since no poller thread will complete it.
 */
final class Invokers {
    private static final ThreadLocal<List<RdmaRuntime>> DRIVEN = new ThreadLocal<>();

    private Invokers() {
    }

    /** Records that the calling thread drives {@code runtime}. */
    static void register(RdmaRuntime runtime) {
        List<RdmaRuntime> driven = DRIVEN.get();
        if (driven == null) {
            driven = new CopyOnWriteArrayList<>();
            DRIVEN.set(driven);
        }
        if (!driven.contains(runtime)) {
            driven.add(runtime);
        }
    }

    static void unregister(RdmaRuntime runtime) {
        List<RdmaRuntime> driven = DRIVEN.get();
        if (driven != null) {
            driven.remove(runtime);
        }
    }

    /** One duty cycle of every runtime the calling thread drives, or null if it drives none. */
    static Runnable current() {
        List<RdmaRuntime> driven = DRIVEN.get();
        if (driven == null || driven.isEmpty()) {
            return null;
        }
        return () -> {
            int work = 0;
            for (RdmaRuntime r : driven) {
                work += r.poll();
            }
            if (work == 0) {
                Thread.onSpinWait();
            }
        };
    }
}
