package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Byte offsets of the native records this provider reads and writes: those our libdisni's extension fills in
 * ({@code verbs_extension.c}, little-endian, {@code docs/native-abi.md} §6) and the few libibverbs and libc
 * structures built in Java (rdma-core 44, x86_64; §2). One place for every offset, so no code reads a bare number;
 * {@link #verify()} checks the libibverbs ones against the headers the library was compiled with (§2.6).
 */
final class NativeLayout {
    /** What {@code NativeVerbs.layout} reports, in its order: the structures and constants Java writes. */
    private static final int[] EXPECTED = {
        SendRequest.SIZE, SendRequest.WR_ID, SendRequest.NEXT, SendRequest.SG_LIST, SendRequest.NUM_SGE,
        SendRequest.OPCODE, SendRequest.SEND_FLAGS, SendRequest.INVALIDATE_RKEY, SendRequest.REMOTE_ADDRESS,
        SendRequest.RKEY,
        ReceiveRequest.SIZE, ReceiveRequest.WR_ID, ReceiveRequest.NEXT, ReceiveRequest.SG_LIST,
        ReceiveRequest.NUM_SGE,
        Sge.SIZE, Sge.ADDRESS, Sge.LENGTH, Sge.LKEY,
        SendRequest.RDMA_WRITE, SendRequest.SEND, SendRequest.RDMA_READ, SendRequest.SEND_WITH_INV,
        SendRequest.FENCE, SendRequest.SIGNALED, Completion.WITH_INV, AsyncEvent.SRQ_ERR,
        AsyncEvent.SRQ_LIMIT_REACHED,
        SendRequest.BIND_MW_WINDOW, SendRequest.BIND_MW_RKEY, SendRequest.BIND_MW_REGION, SendRequest.BIND_MW_ADDRESS,
        SendRequest.BIND_MW_LENGTH, SendRequest.BIND_MW_ACCESS, SendRequest.LOCAL_INV, SendRequest.BIND_MW,
        Window.RKEY,
        Completion.SIZE, Completion.WR_ID, Completion.STATUS, Completion.VENDOR_ERROR, Completion.BYTE_LENGTH,
        Completion.IMMEDIATE, Completion.QP_NUMBER, Completion.FLAGS};

    private NativeLayout() {
    }

    /**
     * Checks that the library was compiled against the layout this class names.
     *
     * @throws RdmaException {@link Status#NOT_SUPPORTED} naming the first value that differs
     */
    static void verify() {
        ByteBuffer out = ByteBuffer.allocateDirect(4 * 64).order(ByteOrder.nativeOrder());
        int count = NativeVerbs.layout(MemoryUtils.getAddress(out), 64);
        int[] actual = new int[Math.max(count, 0)];
        out.asIntBuffer().get(actual);
        if (!Arrays.equals(actual, EXPECTED)) {
            throw new RdmaException(Status.NOT_SUPPORTED, "libdisni.so was built against other libibverbs "
                    + "structures than this provider writes: " + Arrays.toString(actual) + ", expected "
                    + Arrays.toString(EXPECTED));
        }
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
        static final int VENDOR_ID = 32;
        static final int MAX_QP_WR = 48;
        static final int MAX_SGE = 56;
        static final int MAX_CQE = 64;
        static final int MAX_QP_RD_ATOM = 76;
        static final int MAX_QP_INIT_RD_ATOM = 80;
        static final int MAX_SRQ = 96;
        static final int MAX_SRQ_WR = 100;
        static final int MAX_SRQ_SGE = 104;
        static final int IWARP = 120;
        static final int MAX_SGE_RD = 128;

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
        static final int STATE = 0;
        static final int QP_NUMBER = 4;
        static final int MAX_RD_ATOMIC = 28;
        static final int MAX_DEST_RD_ATOMIC = 29;
        static final int ACK_TIMEOUT = 30;
        static final int RETRY_COUNT = 31;
        static final int RNR_RETRY = 32;
        static final int MIN_RNR_TIMER = 33;

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
     * {@code struct ibv_send_wr} (the {@code wr.rdma} arm of its union, and its {@code bind_mw} for window binds), its
     * opcodes and send flags.
     */
    static final class SendRequest {
        static final int WR_ID = 0;
        static final int NEXT = 8;
        static final int SG_LIST = 16;
        static final int NUM_SGE = 24;
        static final int OPCODE = 28;
        static final int SEND_FLAGS = 32;
        static final int INVALIDATE_RKEY = 36;
        static final int REMOTE_ADDRESS = 40;
        static final int RKEY = 48;
        static final int BIND_MW_WINDOW = 80;
        static final int BIND_MW_RKEY = 88;
        static final int BIND_MW_REGION = 96;
        static final int BIND_MW_ADDRESS = 104;
        static final int BIND_MW_LENGTH = 112;
        static final int BIND_MW_ACCESS = 120;
        static final int SIZE = 128;
        static final int RDMA_WRITE = 0;
        static final int SEND = 2;
        static final int RDMA_READ = 4;
        static final int LOCAL_INV = 7;
        static final int BIND_MW = 8;
        static final int SEND_WITH_INV = 9;
        static final int FENCE = 1;
        static final int SIGNALED = 2;

        private SendRequest() {
        }
    }

    /** {@code struct ibv_mw}. */
    static final class Window {
        static final int RKEY = 16;

        private Window() {
        }
    }

    /** {@code struct ibv_recv_wr}. */
    static final class ReceiveRequest {
        static final int WR_ID = 0;
        static final int NEXT = 8;
        static final int SG_LIST = 16;
        static final int NUM_SGE = 24;
        static final int SIZE = 32;

        private ReceiveRequest() {
        }
    }

    /** {@code struct ibv_sge}. */
    static final class Sge {
        static final int ADDRESS = 0;
        static final int LENGTH = 8;
        static final int LKEY = 12;
        static final int SIZE = 16;

        private Sge() {
        }
    }

    /** {@code struct ibv_wc}, as {@code NativeVerbs.pollCq} writes an array of them, and its flags. */
    static final class Completion {
        static final int WR_ID = 0;
        static final int STATUS = 8;
        static final int VENDOR_ERROR = 16;
        static final int BYTE_LENGTH = 20;
        static final int IMMEDIATE = 24;
        static final int QP_NUMBER = 28;
        static final int FLAGS = 36;
        static final int SIZE = 48;
        static final int WITH_INV = 8;

        private Completion() {
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
