package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.util.Locale;

/**
 * Maps socket failures to NDK statuses. Exception types decide where the JDK gives them (bind, refused, no route);
 * where it does not, the errno text the JDK copies into the message decides, with a conservative default.
 */
final class SocketErrors {
    private SocketErrors() {
    }

    /** A failure to bind {@code local}: not our address, no ephemeral port left, or in use. */
    static RdmaException onBind(IOException e, InetSocketAddress local) {
        if (e instanceof BindException || e instanceof SocketException) {
            if (!isLocalAddress(local.getAddress())) {
                return new RdmaException(Status.INVALID_ADDRESS,
                        local.getAddress().getHostAddress() + " is not an address of this host", e);
            }
            if (local.getPort() == 0) {
                return new RdmaException(Status.TOO_MANY_ADDRESSES,
                        "no ephemeral port left on " + local.getAddress().getHostAddress(), e);
            }
            return new RdmaException(Status.SHARING_VIOLATION, "local address " + local + " is in use", e);
        }
        return resources(e, "bind " + local);
    }

    /** A failed TCP connect to {@code destination}; {@code ephemeralLocal} when the local port was not chosen. */
    static RdmaException onConnect(IOException e, InetSocketAddress destination, boolean ephemeralLocal) {
        String text = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        if (e instanceof BindException) {
            return ephemeralLocal
                    ? new RdmaException(Status.TOO_MANY_ADDRESSES, "no ephemeral port left to reach " + destination, e)
                    : new RdmaException(Status.ADDRESS_ALREADY_EXISTS,
                            "a connection with this local and remote address and port exists: " + destination, e);
        }
        if (e instanceof NoRouteToHostException) {
            return new RdmaException(Status.HOST_UNREACHABLE, "no route to host " + destination, e);
        }
        if (text.contains("network is unreachable")) {
            return new RdmaException(Status.NETWORK_UNREACHABLE, "network unreachable for " + destination, e);
        }
        if (e instanceof ConnectException) {
            return text.contains("timed out")
                    ? new RdmaException(Status.IO_TIMEOUT, "TCP connect to " + destination + " timed out", e)
                    : new RdmaException(Status.CONNECTION_REFUSED, "no listener at " + destination, e);
        }
        if (isResourceShortage(text)) {
            return resources(e, "connect to " + destination);
        }
        return new RdmaException(Status.CONNECTION_RESET, "connect to " + destination + " failed: " + e, e);
    }

    /** A failure to create a socket: out of descriptors or memory. */
    static RdmaException resources(IOException e, String what) {
        return new RdmaException(Status.INSUFFICIENT_RESOURCES, what + " failed: " + e.getMessage(), e);
    }

    private static boolean isResourceShortage(String text) {
        return text.contains("too many open files") || text.contains("no buffer space")
                || text.contains("cannot allocate memory");
    }

    static boolean isLocalAddress(InetAddress address) {
        if (address.isAnyLocalAddress() || address.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}
