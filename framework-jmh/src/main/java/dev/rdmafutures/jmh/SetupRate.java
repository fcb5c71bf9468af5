package dev.rdmafutures.jmh;

import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The set-up rate part of {@link ConnectionScale}: connect+accept per second with a number of concurrent connectors
 * (threads that each connect, wait until established and close; one poller per runtime, backing off), beside plain
 * TCP on loopback with as many threads doing a blocking connect, a 1-byte round trip and close against a one-thread
 * NIO echo server.
 */
final class SetupRate {
    private static final int BACKLOG = 1024;
    private static final long SECOND = 1_000_000_000L;
    private static final com.sun.management.OperatingSystemMXBean CPU =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private SetupRate() {
    }

    /** Connect+accept per second with {@code connectors} threads, each connecting, waiting and closing in turn. */
    static Rate soft(int connectors, double seconds) throws Exception {
        RdmaRuntime server = Pair.builder("soft").threadNamePrefix("rate-server").listenBacklog(BACKLOG).build();
        RdmaRuntime client = Pair.builder("soft").threadNamePrefix("rate-client").build();
        try {
            RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.onRequest(r -> r.accept().thenAccept(RdmaConnection::close));
            InetSocketAddress to = listener.localAddress();
            return rate(connectors, seconds, () -> client.connector().connect(to).start()
                    .get(10, TimeUnit.SECONDS).close());
        } finally {
            client.close();
            server.close();
        }
    }

    /** The same with plain TCP: a blocking connect, a 1-byte round trip, close; a one-thread NIO echo server. */
    static Rate tcp(int connectors, double seconds) throws Exception {
        try (TcpEcho echo = new TcpEcho()) {
            return rate(connectors, seconds, () -> {
                try (SocketChannel ch = SocketChannel.open()) {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ch.connect(echo.address);
                    ch.write(ByteBuffer.wrap(new byte[] {1}));
                    if (ch.read(ByteBuffer.allocate(1)) != 1) {
                        throw new IOException("the echo server closed without answering");
                    }
                }
            });
        }
    }

    /** One connect, established, and closed. */
    private interface Connect {
        void run() throws Exception;
    }

    /**
     * Connects per second, and the CPU time (user and system, all of this process's threads: connectors, pollers and
     * echo server, idle spinning included) spent per connect while they were counted.
     */
    record Rate(double perSecond, double cpuMicrosPerConnect) {
    }

    /** Runs {@code connect} on {@code threads} threads: a warm-up of half of {@code seconds}, then counts. */
    private static Rate rate(int threads, double seconds, Connect connect) throws Exception {
        long warmEnd = System.nanoTime() + (long) (seconds * SECOND / 2);
        long end = warmEnd + (long) (seconds * SECOND);
        LongAdder done = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    long now;
                    do {
                        connect.run();
                        now = System.nanoTime();
                        if (now - warmEnd >= 0 && now - end < 0) {
                            done.increment();
                        }
                    } while (now - end < 0 && failure.get() == null);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "connector-" + i);
            t.start();
            running.add(t);
        }
        TimeUnit.NANOSECONDS.sleep(warmEnd - System.nanoTime());
        long cpuStart = CPU.getProcessCpuTime();
        long counted = done.sum();
        TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
        double cpuPerConnect = (CPU.getProcessCpuTime() - cpuStart) / 1e3 / Math.max(1, done.sum() - counted);
        for (Thread t : running) {
            t.join(TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()) + 30_000);
            if (t.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException(t.getName() + " still runs 30 s after the end"));
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("set-up rate with " + threads + " connectors failed", failure.get());
        }
        return new Rate(done.sum() / seconds, cpuPerConnect);
    }

    /** A one-thread NIO server on loopback that answers each connection's byte and closes it. */
    private static final class TcpEcho implements AutoCloseable {
        final InetSocketAddress address;
        private final ServerSocketChannel listener;
        private final Selector selector;
        private final Thread thread;
        private volatile boolean running = true;

        TcpEcho() throws IOException {
            listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    BACKLOG);
            address = (InetSocketAddress) listener.getLocalAddress();
            listener.configureBlocking(false);
            selector = Selector.open();
            listener.register(selector, SelectionKey.OP_ACCEPT);
            thread = new Thread(this::serve, "tcp-echo");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve() {
            ByteBuffer one = ByteBuffer.allocateDirect(1);
            try {
                while (running) {
                    selector.select(key -> {
                        try {
                            if (key.isAcceptable()) {
                                SocketChannel ch;
                                while ((ch = listener.accept()) != null) {
                                    ch.configureBlocking(false);
                                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                                    ch.register(selector, SelectionKey.OP_READ);
                                }
                            } else if (key.isReadable()) {
                                SocketChannel ch = (SocketChannel) key.channel();
                                one.clear();
                                if (ch.read(one) == 1) {
                                    ch.write(one.flip());
                                }
                                ch.close();
                            }
                        } catch (IOException e) {
                            key.cancel();
                        }
                    }, 100);
                }
            } catch (IOException e) {
                if (running) {
                    throw new IllegalStateException("the TCP echo server failed", e);
                }
            }
        }

        @Override
        public void close() throws Exception {
            running = false;
            selector.wakeup();
            thread.join(10_000);
            selector.close();
            listener.close();
        }
    }
}
