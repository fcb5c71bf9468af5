package dev.rdmafutures.samples.kv;

import java.nio.ByteBuffer;

/**
 * The messages, the same over RDMA and over TCP. A request is a {@value #REQUEST_BYTES}-byte header, op (4),
 * request id (4), key (8), value length (4), CRC-32C of the value (4), followed by the value for a PUT. A response
 * is a {@value #RESPONSE_BYTES}-byte header, op (4), request id (4), status (4), length of what follows (4), version
 * (8): a PUT's acknowledgement carries the version it created, a GET's reply (TCP only; over RDMA the client reads
 * it itself) what a GET over RDMA checks: the key's {@link IndexSlot} with its inline value ({@link #SLOT}), or its
 * {@link ValueRecord} from the heap ({@link #VALUE}).
 */
final class Frames {
    static final int REQUEST_BYTES = 24;
    static final int RESPONSE_BYTES = 24;

    static final int GET = 1;
    static final int PUT = 2;
    static final int ACK = 3;
    static final int VALUE = 4;
    static final int SLOT = 5;

    static final int OK = 0;
    static final int NOT_FOUND = 1;
    static final int TABLE_FULL = 2;
    static final int BAD_REQUEST = 3;

    private Frames() {
    }

    static void request(ByteBuffer b, int at, int op, int requestId, long key, int length, int crc) {
        b.putInt(at, op).putInt(at + 4, requestId).putLong(at + 8, key).putInt(at + 16, length)
                .putInt(at + 20, crc);
    }

    static int op(ByteBuffer b, int at) {
        return b.getInt(at);
    }

    static int requestId(ByteBuffer b, int at) {
        return b.getInt(at + 4);
    }

    static long requestKey(ByteBuffer b, int at) {
        return b.getLong(at + 8);
    }

    static int requestLength(ByteBuffer b, int at) {
        return b.getInt(at + 16);
    }

    static int requestCrc(ByteBuffer b, int at) {
        return b.getInt(at + 20);
    }

    static void response(ByteBuffer b, int at, int op, int requestId, int status, int length, long version) {
        b.putInt(at, op).putInt(at + 4, requestId).putInt(at + 8, status).putInt(at + 12, length)
                .putLong(at + 16, version);
    }

    static int responseStatus(ByteBuffer b, int at) {
        return b.getInt(at + 8);
    }

    static int responseLength(ByteBuffer b, int at) {
        return b.getInt(at + 12);
    }

    static long responseVersion(ByteBuffer b, int at) {
        return b.getLong(at + 16);
    }

    static String status(int status) {
        return switch (status) {
            case OK -> "OK";
            case NOT_FOUND -> "NOT_FOUND";
            case TABLE_FULL -> "TABLE_FULL";
            case BAD_REQUEST -> "BAD_REQUEST";
            default -> "status " + status;
        };
    }
}
