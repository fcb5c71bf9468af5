package dev.rdmafutures.internal;

import dev.rdmafutures.Access;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.internal.poller.PollerProxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;

/** Argument checks shared by the API's builders: each failure is an {@link RdmaException} that names the fix. */
public final class Validation {
    public static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    private Validation() {
    }

    public static InetSocketAddress destination(InetSocketAddress address) {
        Objects.requireNonNull(address, "destination");
        resolved(address, "destination");
        if (address.getPort() == 0) {
            throw new RdmaException(Status.INVALID_ADDRESS, "destination port must be 1..65535, not 0");
        }
        return address;
    }

    public static InetSocketAddress local(InetSocketAddress address, String what) {
        Objects.requireNonNull(address, what);
        return resolved(address, what);
    }

    private static InetSocketAddress resolved(InetSocketAddress address, String what) {
        if (address.isUnresolved()) {
            throw new RdmaException(Status.INVALID_ADDRESS,
                    what + " " + address.getHostString() + " is unresolved; resolve it before connecting");
        }
        return address;
    }

    public static Duration timeout(Duration timeout, String what) {
        Objects.requireNonNull(timeout, what);
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new RdmaException(Status.INVALID_PARAMETER, what + " must be positive and at most a day: " + timeout);
        }
        return timeout;
    }

    public static byte[] privateData(byte[] data) {
        return Objects.requireNonNull(data, "privateData (use an empty array for none)").clone();
    }

    /** The rights named, as a set; null arrays and elements are refused. */
    public static EnumSet<Access> accessRights(Access[] access) {
        EnumSet<Access> rights = EnumSet.noneOf(Access.class);
        for (Access a : Objects.requireNonNull(access, "access")) {
            rights.add(Objects.requireNonNull(a, "access"));
        }
        return rights;
    }

    /**
     * The rights a buffer is registered with, after checking the buffer: not null, not empty, and not read-only
     * where the rights write into it.
     */
    static EnumSet<Access> bufferRights(ByteBuffer buffer, Access[] access) {
        Objects.requireNonNull(buffer, "buffer");
        EnumSet<Access> rights = accessRights(access);
        if (!buffer.hasRemaining()) {
            throw new RdmaException(Status.INVALID_PARAMETER, "cannot register an empty buffer");
        }
        if (buffer.isReadOnly() && (rights.contains(Access.LOCAL_WRITE) || rights.contains(Access.REMOTE_WRITE))) {
            throw new RdmaException(Status.INVALID_PARAMETER, "a read-only buffer cannot be registered for writing");
        }
        return rights;
    }

    public static RdmaException overflow(String phase, int length, int max) {
        return new RdmaException(Status.BUFFER_OVERFLOW,
                phase + " private data is " + length + " bytes; this adapter carries at most " + max);
    }

    /** The refusal of a call on a closed runtime: the same error a refused poller command gives. */
    public static RdmaException closed(String what) {
        return PollerProxy.runtimeClosed(Status.INVALID_DEVICE_STATE, what);
    }
}
