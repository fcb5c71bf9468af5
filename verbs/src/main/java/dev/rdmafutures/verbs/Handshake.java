package dev.rdmafutures.verbs;

import dev.rdmafutures.RdmaException;
import java.io.IOException;

/**
 * How one side of a {@link VerbsConnection} gets it established: {@link ActiveHandshake} or
 * {@link PassiveHandshake}. It runs while the connection's lifecycle is establishing (ESTABLISHING or PENDING) and
 * ends in {@link VerbsConnection#becomeEstablished} or in {@link #fail}. Poller thread only.
 */
interface Handshake {
    /** The verbs steps inside the lifecycle's ESTABLISHING phase. */
    enum Step {
        /** Active: {@code rdma_resolve_addr} is under way. */
        RESOLVING_ADDRESS,
        /** Active: {@code rdma_resolve_route} is under way. */
        RESOLVING_ROUTE,
        /** Active: the connect is sent; the peer has not yet accepted (or, PENDING, we have not completed). */
        CONNECTING,
        /** Passive: the peer's request waits for our answer. */
        REQUESTED,
        /** Passive: our accept is sent; the connection is not yet established. */
        ACCEPTING
    }

    /** Where this side is. */
    Step step();

    /** A CM event for the connection while it is establishing. */
    void onCmEvent(CmEvent event) throws IOException;

    /** Ends establishment with {@code error}: releases the connection and reports it once; no-op once decided. */
    void fail(RdmaException error);
}
