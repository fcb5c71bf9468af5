package dev.rdmafutures.netty;

import dev.rdmafutures.RdmaRuntime;
import io.netty.channel.IoHandlerFactory;
import java.util.function.Consumer;

/**
 * The runtime the event loops of one group share: built by the first loop that starts, with one invoked poller per
 * loop, which that loop's thread claims; closed when every loop has stopped (each stops its own poller first, on its
 * own thread). One runtime lets a listener's connections live on every loop (the providers deal them in turn), and
 * lets memory registered on one loop serve a channel on another. Thread-safe.
 */
final class GroupRuntime {
    private final int size;
    private final Consumer<RdmaRuntime.Builder> configuration;
    /** The handlers in loop order; written by the group's constructor, read by any loop once all exist. */
    private final RdmaIoHandler[] handlers;
    /** How many handlers the factory made; guarded by this. */
    private int made;
    /** Guarded by this: built by the first loop that starts. */
    private RdmaRuntime runtime;
    /** Loops that stopped; guarded by this. The runtime closes when all have, and is never built again. */
    private int left;

    GroupRuntime(int size, Consumer<RdmaRuntime.Builder> configuration) {
        this.size = size;
        this.configuration = configuration;
        this.handlers = new RdmaIoHandler[size];
    }

    /** Makes the handlers, one per loop: the group calls it {@code size} times, in loop order. */
    IoHandlerFactory factory() {
        return executor -> {
            synchronized (this) {
                if (made == size) {
                    throw new IllegalStateException("this factory serves a group of " + size + " event loops");
                }
                RdmaIoHandler handler = new RdmaIoHandler(executor, this, made);
                handlers[made++] = handler;
                return handler;
            }
        };
    }

    int size() {
        return size;
    }

    /**
     * The runtime, built on the calling loop's thread if it is the first to start.
     *
     * @throws IllegalStateException when every loop has stopped already
     */
    synchronized RdmaRuntime join() {
        if (left == size) {
            throw new IllegalStateException("the event loops of this group have stopped, and their runtime closed");
        }
        if (runtime == null) {
            RdmaRuntime.Builder builder = RdmaRuntime.builder().threadNamePrefix("rdmafutures-netty");
            configuration.accept(builder);
            // Invoked pollers, one per loop: the event loops are the runtime's pollers.
            runtime = builder.pollerThreads(0).invokedPollers(size).build();
        }
        return runtime;
    }

    /**
     * A loop stopped, whether or not it joined (every loop the group made stops once): the last one closes the
     * runtime, on its thread.
     */
    synchronized void leave() {
        if (++left == size && runtime != null) {
            runtime.close();
        }
    }

    /** The handler of the loop whose thread calls, or null on a thread that is none of this group's loops. */
    RdmaIoHandler onCurrentThread() {
        Thread current = Thread.currentThread();
        for (RdmaIoHandler handler : handlers) {
            if (handler != null && handler.executor().isExecutorThread(current)) {
                return handler;
            }
        }
        return null;
    }
}
