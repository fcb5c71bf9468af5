package dev.rdmafutures.jmh;

import dev.rdmafutures.RemoteBuffer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * {@link ConnectionScale}'s handle on the server end of its connections, a child JVM running {@link ScaleServer}, so
 * that each process holds one socket per connection: 10,000 connections then fit a limit of 20,000 descriptors per
 * process. The child listens on 127.0.0.1..127.0.0.k, accepts every request and answers one-line commands on its
 * standard input.
 */
final class ServerProcess implements AutoCloseable {
    final List<InetSocketAddress> listeners = new ArrayList<>();
    final RemoteBuffer buffer;
    private final ChildJvm child;

    ServerProcess(int n) throws IOException {
        child = new ChildJvm(ScaleServer.class, Integer.toString(n));
        try {
            String[] listening = child.expect("listening");
            for (int i = 1; i < listening.length; i++) {
                listeners.add(ChildJvm.socketAddress(listening[i]));
            }
            buffer = RemoteBuffer.decode(HexFormat.of().parseHex(child.expect("region")[1]));
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Connections the server accepted (established) so far, and those of them open now. */
    long[] state() {
        String[] a = child.ask("state");
        return new long[] {Long.parseLong(a[1]), Long.parseLong(a[2])};
    }

    /** Heap after a full GC, direct and resident bytes of the server process. */
    long[] memory() {
        String[] m = child.ask("memory");
        return new long[] {Long.parseLong(m[1]), Long.parseLong(m[2]), Long.parseLong(m[3])};
    }

    @Override
    public void close() {
        child.close();
    }
}
