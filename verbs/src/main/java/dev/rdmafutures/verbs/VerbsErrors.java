package dev.rdmafutures.verbs;

import com.ibm.disni.verbs.IbvWC;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps errno values, failed DiSNI calls, CM event statuses and work-completion statuses to statuses
 * ({@code docs/native-abi.md} §5.6), and defines the one private-data marker this provider puts on the wire.
 */
final class VerbsErrors {
    static final int EPERM = 1;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int EAFNOSUPPORT = 97;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETUNREACH = 101;
    static final int ECONNRESET = 104;
    static final int ENOBUFS = 105;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    /** IB CM reject reasons (positive statuses of REJECTED events on IB/RoCE). */
    private static final int IB_REJ_NO_RESOURCES = 3;
    private static final int IB_REJ_TIMEOUT = 4;
    private static final int IB_REJ_INSUFFICIENT_RESP_RESOURCES = 27;
    private static final Pattern ERRNO = Pattern.compile("\\(errno (\\d+)\\)");
    /** Work-completion statuses ({@code enum ibv_wc_status}) that map to something else than a protocol error. */
    static final int WC_SUCCESS = 0;
    static final int WC_LOC_LEN_ERR = 1;
    static final int WC_LOC_QP_OP_ERR = 2;
    static final int WC_LOC_PROT_ERR = 4;
    static final int WC_WR_FLUSH_ERR = 5;
    static final int WC_REM_INV_REQ_ERR = 9;
    static final int WC_REM_ACCESS_ERR = 10;
    static final int WC_REM_OP_ERR = 11;
    static final int WC_RETRY_EXC_ERR = 12;
    static final int WC_RNR_RETRY_EXC_ERR = 13;
    /**
     * The private data of the REJ with which a connector whose pending deadline passed answers the peer's REP (IB and
     * RoCE): the peer's accept then fails with IO_TIMEOUT (NdkAcceptEx), not CONNECTION_ABORTED. The peer receives
     * it zero-padded to the REJ's 148 bytes.
     */
    static final byte[] EXPIRED_MARKER = "RdmaFutures:IO_TIMEOUT".getBytes(StandardCharsets.US_ASCII);

    private VerbsErrors() {
    }

    /** The errno our libdisni put into an IOException's message, or 0. */
    static int errnoOf(IOException e) {
        Matcher m = ERRNO.matcher(String.valueOf(e.getMessage()));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /**
     * A synchronous failure of a bind, listen, resolve, connect or accept. {@code ephemeralPort}: port 0 was asked
     * for on a local address, so EADDRNOTAVAIL means the ports ran out rather than a foreign address.
     */
    static RdmaException of(int errno, boolean ephemeralPort, String what) {
        return new RdmaException(statusOf(errno, ephemeralPort), what + " failed: errno " + errno);
    }

    static RdmaException of(IOException e, boolean ephemeralPort, String what) {
        int errno = errnoOf(e);
        return new RdmaException(statusOf(errno, ephemeralPort), what + " failed: errno " + errno, e);
    }

    /** Whether {@code address} asks for an ephemeral port on an address of this host. */
    static boolean ephemeralOnLocalAddress(java.net.InetSocketAddress address) {
        if (address.getPort() != 0) {
            return false;
        }
        try {
            return address.getAddress().isAnyLocalAddress()
                    || java.net.NetworkInterface.getByInetAddress(address.getAddress()) != null;
        } catch (java.net.SocketException e) {
            return false;
        }
    }

    private static Status statusOf(int errno, boolean ephemeralPort) {
        return switch (errno) {
            case EADDRINUSE -> Status.SHARING_VIOLATION; // as for sockets: the local address is taken
            case EADDRNOTAVAIL -> ephemeralPort ? Status.TOO_MANY_ADDRESSES : Status.INVALID_ADDRESS;
            case ENODEV, EAFNOSUPPORT -> Status.INVALID_ADDRESS;
            case EACCES, EPERM -> Status.ACCESS_VIOLATION;
            case EINVAL -> Status.INVALID_PARAMETER;
            case ENOMEM, ENOBUFS -> Status.INSUFFICIENT_RESOURCES;
            case ETIMEDOUT -> Status.IO_TIMEOUT;
            case ENETUNREACH -> Status.NETWORK_UNREACHABLE;
            case EHOSTUNREACH -> Status.HOST_UNREACHABLE;
            case ECONNREFUSED -> Status.CONNECTION_REFUSED;
            case ECONNRESET -> Status.CONNECTION_RESET;
            default -> Status.INSUFFICIENT_RESOURCES;
        };
    }

    /** ADDR_ERROR / ROUTE_ERROR. */
    static RdmaException resolution(int status, boolean route, Object destination) {
        int errno = -status;
        Status mapped = switch (errno) {
            case ENETUNREACH, ENODEV -> Status.NETWORK_UNREACHABLE;
            case EADDRNOTAVAIL, EAFNOSUPPORT, EINVAL -> Status.INVALID_ADDRESS;
            case ETIMEDOUT -> route ? Status.IO_TIMEOUT : Status.HOST_UNREACHABLE;
            default -> Status.HOST_UNREACHABLE;
        };
        return new RdmaException(mapped, (route ? "route" : "address") + " resolution of " + destination
                + " failed: status " + status);
    }

    /** REJECTED on the active side: an IB CM reason (positive) or an iWARP errno (negative). */
    static RdmaException rejected(int status, Object destination) {
        Status mapped = switch (status) {
            case IB_REJ_NO_RESOURCES, IB_REJ_INSUFFICIENT_RESP_RESOURCES -> Status.INSUFFICIENT_RESOURCES;
            case IB_REJ_TIMEOUT -> Status.IO_TIMEOUT;
            default -> Status.CONNECTION_REFUSED;
        };
        return new RdmaException(mapped, destination + " refused the connection (status " + status + ")");
    }

    /** UNREACHABLE or CONNECT_ERROR on the active side. */
    static RdmaException connectFailed(int event, int status, Object destination) {
        int errno = -status;
        Status mapped = errno == ETIMEDOUT ? Status.IO_TIMEOUT
                : errno == ECONNRESET ? Status.CONNECTION_RESET
                : errno == ECONNREFUSED ? Status.CONNECTION_REFUSED
                : event == CmEvent.UNREACHABLE ? Status.HOST_UNREACHABLE : Status.CONNECTION_ABORTED;
        return new RdmaException(mapped, "connect to " + destination + " failed: "
                + CmEvent.name(event) + " status " + status);
    }

    /**
     * REJECTED on the passive side, after our accept: the connector rejected our REP. Its expiry says so with
     * {@link #EXPIRED_MARKER}; any other reject aborts the accept.
     */
    static RdmaException rejectedAfterAccept(byte[] privateData, Object peer) {
        boolean expired = privateData.length >= EXPIRED_MARKER.length
                && Arrays.equals(privateData, 0, EXPIRED_MARKER.length, EXPIRED_MARKER, 0, EXPIRED_MARKER.length);
        return expired ? new RdmaException(Status.IO_TIMEOUT, peer + " never completed the connection (its pending"
                        + " deadline passed)")
                : new RdmaException(Status.CONNECTION_ABORTED, peer + " rejected the connection after our accept");
    }

    /**
     * A failed work completion. {@code receive}: it was a receive (rxe reports a message longer than the posted
     * receive as a local QP operation error there).
     */
    static RdmaException completion(int status, boolean receive, int vendorError) {
        Status mapped = receive && status == WC_LOC_QP_OP_ERR ? Status.BUFFER_OVERFLOW : switch (status) {
            case WC_LOC_LEN_ERR -> Status.BUFFER_OVERFLOW;
            case WC_LOC_PROT_ERR, WC_REM_ACCESS_ERR -> Status.ACCESS_VIOLATION;
            case WC_REM_INV_REQ_ERR, WC_REM_OP_ERR -> Status.REMOTE_RESOURCES;
            case WC_RETRY_EXC_ERR, WC_RNR_RETRY_EXC_ERR -> Status.IO_TIMEOUT;
            default -> Status.INVALID_NETWORK_RESPONSE;
        };
        IbvWC.IbvWcStatus[] names = IbvWC.IbvWcStatus.values();
        String name = status >= 0 && status < names.length ? names[status].name() : "status " + status;
        return new RdmaException(mapped, "work completion " + name + " (vendor error " + vendorError + ")");
    }

    /** {@code call} ({@code ibv_post_send}, {@code ibv_post_recv}, ...) refused work request {@code index}. */
    static RdmaException postFailed(String call, int errno, int index) {
        return new RdmaException(postStatus(errno),
                call + " failed: errno " + errno + (index > 0 ? " at work request " + index : ""));
    }

    /**
     * A request chained behind one the device refused with {@code errno}: not posted either, with the same status.
     */
    static RdmaException notPosted(String call, int errno) {
        return new RdmaException(postStatus(errno),
                "not posted: " + call + " refused an earlier request of the chain (errno " + errno + ")");
    }

    private static Status postStatus(int errno) {
        return errno == ENOMEM ? Status.INSUFFICIENT_RESOURCES : Status.INVALID_PARAMETER;
    }

    /**
     * What a fatal asynchronous event means for the requests of the connections it ends: a port that went down
     * NETWORK_UNREACHABLE, a failed device DEVICE_REMOVED, a failed QP or CQ INVALID_DEVICE_STATE; the message
     * names the event.
     */
    static RdmaException deviceFailure(AsyncEvent event, String device) {
        return switch (event.type()) {
            case AsyncEvent.PORT_ERR -> new RdmaException(Status.NETWORK_UNREACHABLE, "port " + event.port() + " of "
                    + device + " went down (" + event.name() + ")");
            case AsyncEvent.DEVICE_FATAL -> new RdmaException(Status.DEVICE_REMOVED, device + " failed ("
                    + event.name() + ")");
            case AsyncEvent.CQ_ERR -> new RdmaException(Status.INVALID_DEVICE_STATE, "the connection's completion"
                    + " queue on " + device + " failed (" + event.name() + ")");
            default -> new RdmaException(Status.INVALID_DEVICE_STATE, "the connection's queue pair on " + device
                    + " failed (" + event.name() + ")");
        };
    }
}
