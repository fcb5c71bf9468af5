package dev.rdmafutures.samples.kv;

import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's acknowledgements on one connection: small Sends from a ring of registered buffers, each buffer reused
 * once its Send completed. A client keeps at most its window of PUTs outstanding, so twice that many buffers (and
 * initiator slots) nearly always suffice; an acknowledgement that finds none free waits here for the next
 * completion. Each buffer's slice is made once, so an acknowledgement allocates nothing. A Send the connection refuses
 * (it ended meanwhile) returns its buffer and is logged. Touched only by the connection's poller thread.
 */
final class AckSender implements CompletionCallback {
    private static final Logger LOG = LoggerFactory.getLogger(AckSender.class);

    private final RdmaConnection connection;
    private final MemoryRegion region;
    private final ByteBuffer view;
    /** Buffer {@code i}'s span of {@link #region}. */
    private final RegionSlice[] slices;
    private final int[] free;
    private int freeCount;
    private final ArrayDeque<long[]> waiting = new ArrayDeque<>();

    AckSender(RdmaRuntime runtime, RdmaConnection connection, int buffers) {
        this.connection = connection;
        this.region = runtime.register(ByteBuffer.allocateDirect(buffers * Frames.RESPONSE_BYTES));
        this.view = region.buffer();
        this.slices = new RegionSlice[buffers];
        this.free = new int[buffers];
        for (int i = 0; i < buffers; i++) {
            slices[i] = region.slice(i * Frames.RESPONSE_BYTES, Frames.RESPONSE_BYTES);
            free[freeCount++] = i;
        }
    }

    /** Acknowledges a PUT with its status and, if it succeeded, the version it created. */
    void ack(int requestId, int status, long version) {
        if (freeCount == 0) {
            waiting.add(new long[] {requestId, status, version});
            return;
        }
        int buffer = free[--freeCount];
        int at = buffer * Frames.RESPONSE_BYTES;
        Frames.response(view, at, Frames.ACK, requestId, status, 0, version);
        Status posted = connection.send(slices[buffer], OperationFlags.NONE, this, buffer);
        if (posted != Status.SUCCESS) { // typically the connection ended meanwhile
            free[freeCount++] = buffer;
            LOG.warn("cannot acknowledge request {} on {}: refused with {}", requestId, connection.remoteAddress(),
                    posted);
        }
    }

    @Override
    public void completed(long context, int bytes) {
        free[freeCount++] = (int) context;
        long[] next = waiting.poll();
        if (next != null) {
            ack((int) next[0], (int) next[1], next[2]);
        }
    }

    @Override
    public void failed(long context, RdmaException error) {
        free[freeCount++] = (int) context;
        LOG.debug("an acknowledgement to {} failed: {}", connection.remoteAddress(), error.toString());
    }

    /** Releases the buffers once the connection ended. */
    void close() {
        region.close();
    }
}
