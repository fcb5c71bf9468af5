package dev.rdmafutures.verbs;

import dev.rdmafutures.spi.ListenEvents;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a listener's connect requests spread over a device's event loops: the device deals them to its loops in turn
 * ({@link VerbsDevice#nextRequestLoop()}), so that one listener's connections use every poller. The chosen loop moves
 * the request's CM id to its own event channel, where the id's later events arrive, and answers the request there
 * ({@link PassiveHandshake}); the connection's QP then goes on that loop's completion queues. A request the chosen
 * loop cannot take (it closed, or the id could not move) goes back to the loop it arrived on; a loop whose poller was
 * stopped takes none. Each step runs on the thread of the loop it names.
 */
final class RequestDealing {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDealing.class);

    private RequestDealing() {
    }

    /**
     * A connect request on a listener {@code origin} serves, read into {@code event} (a record {@code origin} reuses
     * for its next event): dealt to the next loop, or answered on {@code origin} when the next loop is {@code origin}
     * itself or takes no task.
     */
    static void onConnectRequest(VerbsEventLoop origin, VerbsListener listener, ListenEvents events, CmEvent event)
            throws IOException {
        VerbsEventLoop target = origin.device().nextRequestLoop();
        if (target != null && target != origin) {
            CmEvent request = event.copy();
            if (target.execute(() -> take(target, origin, listener, events, request))) {
                return;
            }
        }
        PassiveHandshake.onConnectRequest(origin, listener, events, event, listener.channel());
    }

    /**
     * On {@code target}: a request {@code origin} dealt to it, its id still on the listener's channel. If
     * {@code target} closed meanwhile, or the id cannot move, the request goes back to {@code origin}; if that loop
     * closed too, nobody answers it.
     */
    private static void take(VerbsEventLoop target, VerbsEventLoop origin, VerbsListener listener, ListenEvents events,
                             CmEvent request) {
        try {
            int rc = target.isClosed() ? -1 : listener.moveRequest(request.id(), target.ownChannelHandle());
            if (rc == 0) {
                PassiveHandshake.onConnectRequest(target, listener, events, request, target.ownChannel());
                return;
            }
            if (!target.isClosed()) {
                LOG.debug("moving the connect request {} to another loop failed (errno {}); its listener's loop "
                        + "takes it", request, -rc);
            }
            if (!origin.execute(() -> takeBack(origin, listener, events, request))) {
                listener.destroyRequest(origin.device(), request.id());
            }
        } catch (IOException | RuntimeException e) {
            target.poller().recordError("verbs CM event " + request, e);
        }
    }

    /** On {@code origin}, the listener's loop: a request dealt to another loop that did not take it. */
    private static void takeBack(VerbsEventLoop origin, VerbsListener listener, ListenEvents events, CmEvent request) {
        try {
            if (origin.isClosed()) { // run by its close, which destroyed the listener's channel and the id with it
                listener.destroyRequest(origin.device(), request.id());
                return;
            }
            PassiveHandshake.onConnectRequest(origin, listener, events, request, listener.channel());
        } catch (IOException | RuntimeException e) {
            origin.poller().recordError("verbs CM event " + request, e);
        }
    }
}
