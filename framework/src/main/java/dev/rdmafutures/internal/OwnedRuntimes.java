package dev.rdmafutures.internal;

import java.util.ArrayList;

/**
 * The application-driven runtimes the calling thread owns, so that whatever future this thread waits on (of its
 * own runtime, or of another one whose progress needs its runtime to run, like a server's accept waiting for this
 * client's request), the wait keeps them all running. Ownership itself is each poller's owner, set only when the
 * runtime is built, when its owner hands it over, and when a thread claims one of several; this per-thread list is an
 * index of it,
 * entered only on the verified owner thread and checked against the owner before each use, so it never decides who
 * owns what. It is the one static of the core, and it is thread-confined.
 */
final class OwnedRuntimes {
    private static final ThreadLocal<ArrayList<RuntimeCore>> OWNED = ThreadLocal.withInitial(ArrayList::new);

    private OwnedRuntimes() {
    }

    /** Indexes {@code runtime} for the calling thread, which must be its owner. */
    static void enter(RuntimeCore runtime) {
        ArrayList<RuntimeCore> owned = OWNED.get();
        if (!owned.contains(runtime)) {
            owned.add(runtime);
        }
    }

    /** Drops {@code runtime} from the calling thread's index (handed over, or closed). */
    static void leave(RuntimeCore runtime) {
        OWNED.get().remove(runtime);
    }

    /** Whether the calling thread owns any application-driven runtime. */
    static boolean any() {
        return !OWNED.get().isEmpty();
    }

    /**
     * One duty cycle of every runtime the calling thread still owns; entries it no longer owns (handed over,
     * closed) leave the index. Returns the work done. By index: this runs in every spin of a wait.
     */
    static int driveAll() {
        ArrayList<RuntimeCore> owned = OWNED.get();
        int work = 0;
        for (int i = owned.size() - 1; i >= 0; i--) {
            RuntimeCore runtime = owned.get(i);
            if (runtime.isClosed() || !runtime.ownedByCurrentThread()) {
                owned.remove(i);
            } else {
                work += runtime.poll();
            }
        }
        return work;
    }
}
