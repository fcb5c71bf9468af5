package dev.rdmafutures.netty;

import dev.rdmafutures.AdapterInfo;

/**
 * One side's byte-stream parameters: the size of each receive buffer (the largest message the peer may send it,
 * header included), how many receives it keeps posted (the credits it grants), and how many sends it keeps in flight.
 */
record StreamSettings(int bufferSize, int receiveDepth, int sendDepth) {
    static final int DEFAULT_BUFFER_SIZE = 16 * 1024;
    /**
     * Credits count messages, not bytes, and a flush rarely fills a message: gRPC's streams averaged 9 KiB of the
     * 16 KiB. At 32, a gRPC server stream spent a third of its time waiting for credits, held well under gRPC's own
     * 1 MiB window; at 64 (1 MiB of receive buffers per connection) those waits fell from 943 ms to 229-375 ms of a
     * 3 s stream (docs/profiles/2026-11-29-grpc-stream-credits.md).
     */
    static final int DEFAULT_RECEIVE_DEPTH = 64;
    static final int DEFAULT_SEND_DEPTH = 16;
    static final int MIN_BUFFER_SIZE = 64;
    static final int MAX_BUFFER_SIZE = 16 * 1024 * 1024;
    /** Credits travel in 16 bits; a deeper queue could not return them all in one message. */
    static final int MAX_DEPTH = 0xFFFF;
    static final int MIN_DEPTH = 4;

    static final StreamSettings DEFAULT = new StreamSettings(DEFAULT_BUFFER_SIZE, DEFAULT_RECEIVE_DEPTH,
            DEFAULT_SEND_DEPTH);

    /** The most a stream registers per direction: depth times buffer size. */
    static final long MAX_REGION_BYTES = 1L << 30;

    StreamSettings {
        checkBufferSize(bufferSize);
        checkDepth("receive depth", receiveDepth);
        checkDepth("send depth", sendDepth);
        if ((long) receiveDepth * bufferSize > MAX_REGION_BYTES || (long) sendDepth * bufferSize > MAX_REGION_BYTES) {
            throw new IllegalArgumentException("a stream of depth " + Math.max(receiveDepth, sendDepth) + " and "
                    + bufferSize + "-byte buffers would register more than " + MAX_REGION_BYTES + " bytes");
        }
    }

    static int checkBufferSize(int bufferSize) {
        if (bufferSize < MIN_BUFFER_SIZE || bufferSize > MAX_BUFFER_SIZE) {
            throw new IllegalArgumentException("stream buffer size " + bufferSize + " is outside " + MIN_BUFFER_SIZE
                    + ".." + MAX_BUFFER_SIZE);
        }
        return bufferSize;
    }

    static int checkDepth(String what, int depth) {
        // One credit is held back for returning credits, and credits are returned two at a time at least, so
        // that header-only returns cannot answer each other forever: below 4 a stream could not carry data.
        if (depth < MIN_DEPTH || depth > MAX_DEPTH) {
            throw new IllegalArgumentException(what + " " + depth + " is outside " + MIN_DEPTH + ".." + MAX_DEPTH);
        }
        return depth;
    }

    /** These settings within what {@code adapter} grants, so that the credits advertised are the receives posted. */
    StreamSettings cappedTo(AdapterInfo adapter) {
        return new StreamSettings(bufferSize, Math.min(receiveDepth, adapter.maxReceiveQueueDepth()),
                Math.min(sendDepth, adapter.maxInitiatorQueueDepth()));
    }

    /**
     * The initiator queue depth to ask for: the stream's sends, its one liveness probe, and as many as its sends again
     * for the application's one-sided operations on {@code RdmaSocketChannel.connection()}, within the adapter's
     * maximum.
     */
    int initiatorDepth(AdapterInfo adapter) {
        return (int) Math.min((long) sendDepth * 2 + 1, adapter.maxInitiatorQueueDepth());
    }
}
