package dev.rdmafutures.soft.rdmap;

/** RDMAP opcodes and queue numbers (RFC 5040 section 4.2 and 5.1). */
public final class Rdmap {
    /** RDMA Write (tagged). */
    public static final int RDMA_WRITE = 0;
    /** RDMA Read Request (untagged, queue 1). */
    public static final int READ_REQUEST = 1;
    /** RDMA Read Response (tagged). */
    public static final int READ_RESPONSE = 2;
    /** Send (untagged, queue 0). */
    public static final int SEND = 3;
    /** Send with Invalidate. */
    public static final int SEND_INVALIDATE = 4;
    /** Send with Solicited Event. */
    public static final int SEND_SE = 5;
    /** Send with Solicited Event and Invalidate. */
    public static final int SEND_SE_INVALIDATE = 6;
    /** Terminate (untagged, queue 2). */
    public static final int TERMINATE = 7;

    /** Untagged queue of Sends. */
    public static final int QUEUE_SEND = 0;
    /** Untagged queue of Read Requests. */
    public static final int QUEUE_READ_REQUEST = 1;
    /** Untagged queue of Terminates. */
    public static final int QUEUE_TERMINATE = 2;

    /** A Read Request's payload: sink STag, sink TO, size, source STag, source TO. */
    public static final int READ_REQUEST_LENGTH = 4 + 8 + 4 + 4 + 8;

    private Rdmap() {
    }

    /** Whether {@code opcode} is one of the four Send forms. */
    public static boolean isSend(int opcode) {
        return opcode >= SEND && opcode <= SEND_SE_INVALIDATE;
    }

    /** Whether a Send form carries an STag to invalidate. */
    public static boolean invalidates(int opcode) {
        return opcode == SEND_INVALIDATE || opcode == SEND_SE_INVALIDATE;
    }
}
