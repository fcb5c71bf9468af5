package dev.rdmafutures.netty;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A TCP relay on loopback between a client and a server (soft speaks iWARP over TCP), whose link can be cut without a
 * reset: {@link #cut()} makes it stop forwarding and stop reading, silently. No FIN, no RST: what either side sends
 * next stays in the kernels' buffers, as behind a cut cable, and only deadlines can tell. Unlike a real cut, the
 * relay's kernel still acknowledges and answers TCP keepalive probes, so TCP alone can never see this cut: whatever
 * ends a call must be the transport's own liveness.
 *
 * <p>{@link #heal()} forwards again: connections accepted from then on reach the server; the ones the cut held are
 * dropped with a reset, as the peers' kernels answer segments of connections that were abandoned during the cut.
 */
final class BlackHoleRelay implements AutoCloseable {
    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Pair> pairs = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean closed;

    BlackHoleRelay(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("relay-accept", this::acceptLoop);
    }

    /** Where clients connect to reach the server through the relay. */
    InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    /** Cuts the link silently: every connection stops forwarding and reading; new ones are held, never forwarded. */
    void cut() {
        cut = true;
        for (Pair p : pairs) {
            p.blackHoled = true;
        }
    }

    /** Forwards again for connections from now on; drops the ones the cut held, with a reset. */
    void heal() {
        cut = false;
        for (Pair p : new ArrayList<>(pairs)) {
            if (p.blackHoled) {
                p.abort();
            }
        }
    }

    /** Connections the relay holds now. */
    int connections() {
        return pairs.size();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Pair p : new ArrayList<>(pairs)) {
            p.abort();
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Pair p = new Pair(client);
            pairs.add(p);
            if (cut) {
                p.blackHoled = true; // a SYN during a cut: the connect never gets an answer beyond TCP's
                continue;
            }
            try {
                p.server = new Socket(target.getAddress(), target.getPort());
            } catch (IOException e) {
                p.abort(); // the server refused: the client sees a reset, as it would without the relay
                continue;
            }
            p.start();
        }
    }

    private final class Pair {
        final Socket client;
        volatile Socket server;
        volatile boolean blackHoled;
        private final CountDownLatch ended = new CountDownLatch(1);
        private int finished;

        Pair(Socket client) {
            this.client = client;
        }

        void start() {
            daemon("relay-up", () -> pump(client, server));
            daemon("relay-down", () -> pump(server, client));
        }

        private void pump(Socket from, Socket to) {
            byte[] chunk = new byte[64 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (!blackHoled) {
                    int n = in.read(chunk);
                    if (n < 0) {
                        to.shutdownOutput(); // a FIN passes on
                        directionEnded();
                        return;
                    }
                    if (blackHoled) {
                        break; // the chunk in flight when the link was cut is lost
                    }
                    out.write(chunk, 0, n);
                }
                awaitEnd(); // reads nothing more: what the peer sends stays in the kernels' buffers
            } catch (IOException e) {
                if (!blackHoled) {
                    abort(); // a reset passes on as a reset
                }
            }
        }

        private synchronized void directionEnded() {
            if (++finished == 2) {
                closeQuietly(client);
                closeQuietly(server);
                pairs.remove(this);
                ended.countDown();
            }
        }

        private void awaitEnd() {
            try {
                ended.await(); // until heal() or close() drops the pair
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Closes both sides with a reset (SO_LINGER 0) and ends the pumps. */
        void abort() {
            reset(client);
            Socket s = server;
            if (s != null) {
                reset(s);
            }
            pairs.remove(this);
            ended.countDown();
        }

        private static void reset(Socket socket) {
            try {
                socket.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(socket);
        }

        private static void closeQuietly(Socket socket) {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // nothing left to release
                }
            }
        }
    }
}
