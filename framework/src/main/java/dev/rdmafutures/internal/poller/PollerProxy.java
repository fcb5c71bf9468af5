package dev.rdmafutures.internal.poller;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.ListenEvents;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way other threads hand work to a {@link Poller} (Aeron's SenderProxy): a typed command per kind of work,
 * and one policy for a command the poller refuses because the runtime is closing. A refused command is never
 * dropped silently: the future waiting on it fails with {@link #runtimeClosed} (INVALID_DEVICE_STATE, or
 * CONNECTION_INVALID for data-path operations, the status NDK gives a request on a connection that is gone); a
 * command with no future of its own (an abort, a disconnect, a refusal) names the subject that the closing event
 * loop has already ended, and is logged at debug level.
 */
public final class PollerProxy {
    private static final Logger LOG = LoggerFactory.getLogger(PollerProxy.class);
    private final Poller poller;

    /** The proxy of {@code poller}. */
    public PollerProxy(Poller poller) {
        this.poller = poller;
    }

    /** The error of every command refused by a closing runtime: {@code what} names the refused call. */
    public static RdmaException runtimeClosed(Status status, String what) {
        return new RdmaException(status, what + ": the runtime is closed");
    }

    /** Starts accepting on {@code bound}. @throws RdmaException INVALID_DEVICE_STATE if refused */
    public void listen(BoundListener bound, ListenEvents events) {
        if (!poller.execute(() -> poller.eventLoop().listen(bound, events))) {
            throw runtimeClosed(Status.INVALID_DEVICE_STATE, "listen");
        }
    }

    /**
     * Runs a command whose outcome is {@code outcome}: starting a connect, answering a request or a pending
     * connection the poller owns. Refused: {@code outcome} fails with {@code status}, and
     * {@code onRefused}, if any, releases what the command held.
     */
    public void submit(String what, Runnable command, CompletableFuture<?> outcome, Status status,
                       Runnable onRefused) {
        if (!poller.execute(command)) {
            if (onRefused != null) {
                onRefused.run();
            }
            outcome.completeExceptionally(runtimeClosed(status, what));
        }
    }

    /**
     * Hands over a data-path operation; it reports its own outcome. Returns false when refused: the caller fails
     * the operation with {@link #runtimeClosed} CONNECTION_INVALID.
     */
    public boolean post(Runnable operation) {
        return poller.execute(operation);
    }

    /**
     * Runs a command whose subject a closing event loop ends by itself (abort an attempt, disconnect or discard a
     * connection, refuse a request): when refused, the loop's close has already ended {@code subject}, so there is
     * nothing left to do but say so. Returns whether it was queued.
     */
    public boolean endSubject(String what, Object subject, Runnable command) {
        if (poller.execute(command)) {
            return true;
        }
        LOG.debug("{} of {} refused: the runtime is closed, and closing it ended that already", what, subject);
        return false;
    }

    /** Whether the caller is the poller's owner thread. */
    public boolean inPollerThread() {
        return poller.inPollerThread();
    }

    /** The poller behind this proxy, for code on its own thread (deadlines). */
    public Poller poller() {
        return poller;
    }
}
