package dev.rdmafutures.verbs;

/**
 * Byte offsets of the native records this provider reads and writes: those our libdisni's extension fills in
 * ({@code verbs_extension.c}, little-endian, ABI document §6) and the few libibverbs and libc structures built in
 * Java (rdma-core 44, x86_64). One place for every offset, so no code reads a bare number.
 */
final class NativeLayout {
    private NativeLayout() {
    }

    /** {@code NativeVerbs.getCmEvent}'s record. */
    static final class CmEventInfo {
        static final int ID = 0;
        static final int TYPE = 16;
        static final int STATUS = 20;
        static final int PRIVATE_DATA_LENGTH = 24;
        static final int RESPONDER_RESOURCES = 28;
        static final int INITIATOR_DEPTH = 29;
        static final int PRIVATE_DATA = 48;
        static final int PRIVATE_DATA_CAPACITY = 256;

        private CmEventInfo() {
        }
    }

    /** {@code NativeVerbs.getCmIdInfo}'s record. */
    static final class CmIdInfo {
        static final int PORT_NUMBER = 32;

        private CmIdInfo() {
        }
    }

    /** {@code NativeVerbs.queryDevice}'s record. */
    static final class DeviceInfo {
        static final int MAX_QP_WR = 48;
        static final int MAX_CQE = 64;
        static final int MAX_QP_RD_ATOM = 76;
        static final int MAX_QP_INIT_RD_ATOM = 80;
        static final int IWARP = 120;

        private DeviceInfo() {
        }
    }

    /** {@code NativeVerbs.queryPort}'s record. */
    static final class PortInfo {
        static final int STATE = 0;
        static final int LINK_LAYER = 8;

        private PortInfo() {
        }
    }

    /** {@code NativeVerbs.queryQp}'s record. */
    static final class QpInfo {
        static final int MAX_RD_ATOMIC = 28;
        static final int MAX_DEST_RD_ATOMIC = 29;

        private QpInfo() {
        }
    }

    /** {@code NativeVerbs.getAsyncEvent}'s record. */
    static final class AsyncEventInfo {
        static final int TYPE = 0;
        static final int PORT = 4;
        static final int ELEMENT = 8;

        private AsyncEventInfo() {
        }
    }

    /**
     * One {@code struct ibv_recv_wr} with its single {@code struct ibv_sge} right behind it, and the word
     * {@code NativeVerbs.postRecv} writes the failing request's index to.
     */
    static final class ReceiveRequest {
        static final int WR_ID = 0;
        static final int NEXT = 8;
        static final int SG_LIST = 16;
        static final int NUM_SGE = 24;
        static final int SGE = 32;
        static final int SGE_ADDRESS = SGE;
        static final int SGE_LENGTH = SGE + 8;
        static final int SGE_LKEY = SGE + 12;
        static final int BAD_INDEX = 48;
        static final int SIZE = 56;

        private ReceiveRequest() {
        }
    }

    /** {@code struct pollfd}, as {@code NativeVerbs.pollFds} takes an array of them. */
    static final class PollFd {
        static final int FD = 0;
        static final int EVENTS = 4;
        static final int REVENTS = 6;
        static final int SIZE = 8;
        static final short POLLIN = 1;

        private PollFd() {
        }
    }
}
