package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import java.util.List;

/**
 * How each side of both services waits when it has nothing to do; the same choices for both services, so that
 * neither wins by waiting differently. Each service has one client thread, the load thread, polling the RDMA client's
 * application-driven runtime or the TCP client's selector ({@code selectNow}), and one server thread, the RDMA server
 * runtime's poller or the TCP server's selector loop ({@link Idler}).
 *
 * @param client BUSY_SPIN or YIELD: an application-driven runtime offers its owner no way to block
 * @param server any strategy
 */
record Waiting(IdleStrategy client, IdleStrategy server) {
    /** The strategies a client may use. */
    static final List<IdleStrategy> CLIENT_CHOICES = List.of(IdleStrategy.YIELD, IdleStrategy.BUSY_SPIN);

    Waiting {
        if (!CLIENT_CHOICES.contains(client)) {
            throw new IllegalArgumentException("a client waits with one of " + CLIENT_CHOICES + ", not " + client);
        }
    }

    /** The client thread of {@code service} ({@code RDMA} or {@code TCP}) and its strategy, for the header. */
    String describeClient(String service) {
        return (service.equals("RDMA") ? "the load thread, polling its application-driven runtime"
                : "the load thread, polling its selector with selectNow") + " (idle " + client + ")";
    }

    /** The server thread of {@code service} ({@code RDMA} or {@code TCP}) and its strategy, for the header. */
    String describeServer(String service) {
        return (service.equals("RDMA") ? "the server runtime's one poller" : "one selector loop") + " (idle " + server
                + ")";
    }
}
