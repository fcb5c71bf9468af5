package dev.rdmafutures.netty;

import dev.rdmafutures.RdmaException;
import io.netty.channel.ConnectTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketAddress;
import java.util.concurrent.CompletionException;

/** A failed RDMA connect as the exception a Netty application expects of a socket connect. */
final class ConnectErrors {
    private ConnectErrors() {
    }

    static Throwable toNetty(Throwable error, SocketAddress remote) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (!(cause instanceof RdmaException rdma)) {
            return cause;
        }
        String message = "RDMA connect to " + remote + ": " + rdma.getMessage();
        IOException mapped = switch (rdma.status()) {
            case IO_TIMEOUT -> new ConnectTimeoutException(message);
            case CONNECTION_REFUSED -> new ConnectException(message);
            case NETWORK_UNREACHABLE, HOST_UNREACHABLE -> new NoRouteToHostException(message);
            default -> new IOException(message);
        };
        mapped.initCause(rdma);
        return mapped;
    }
}
