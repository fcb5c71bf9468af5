package dev.rdmafutures;

import java.util.ArrayList;
import java.util.List;

/**
 * The runtimes each application thread drives itself ({@code pollerThreads(0)}): a thread that waits on a future
 * must run their duty cycles, since no poller thread will complete it. Each thread sees only its own list.
 */
final class Invokers {
    private static final ThreadLocal<List<RdmaRuntime>> DRIVEN = new ThreadLocal<>();

    private Invokers() {
    }

    /** Records that the calling thread drives {@code runtime}. */
    static void register(RdmaRuntime runtime) {
        List<RdmaRuntime> driven = DRIVEN.get();
        if (driven == null) {
            driven = new ArrayList<>();
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
        return Invokers::driveOnce; // captures nothing: one shared instance
    }

    private static void driveOnce() {
        List<RdmaRuntime> driven = DRIVEN.get();
        int work = 0;
        // By index, no iterator: this runs in every spin of a wait. A runtime closed meanwhile leaves the list.
        for (int i = 0; i < driven.size(); i++) {
            work += driven.get(i).poll();
        }
        if (work == 0) {
            Thread.onSpinWait();
        }
    }
}
