package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The data-path part of the demo: READ, WRITE and SEND of several sizes with checksums, then READ latency
 * percentiles and windowed READ throughput, each beside a raw TCP baseline measured in the same run (a blocking
 * socket request/response of the same sizes, and a socket stream).
 */
final class DataPathTour {
    private static final int[] SIZES = {8, 4096, 65536};
    private static final int MAX = 1 << 20;

    private final RdmaRuntime runtime;
    private final RdmaConnection client;
    private final RdmaConnection server;
    private final PrintStream out;

    DataPathTour(RdmaRuntime runtime, RdmaConnection client, RdmaConnection server, PrintStream out) {
        this.runtime = runtime;
        this.client = client;
        this.server = server;
        this.out = out;
    }

    /** Runs the tour; returns whether every byte arrived intact. */
    boolean run() throws Exception {
        MemoryRegion local = runtime.register(ByteBuffer.allocateDirect(MAX), Access.LOCAL_WRITE);
        MemoryRegion remote = runtime.register(ByteBuffer.allocateDirect(MAX), Access.values());
        RemoteBuffer token = RemoteBuffer.decode(remote.remote().encode()); // as a peer would receive it
        fill(remote, 1);
        boolean intact = true;
        out.println("data path (READ, WRITE, SEND; CRC32C of the bytes on both sides):");
        for (int size : new int[] {1, 8, 4096, 65536, MAX}) {
            get(client.read(local, 0, token, 0, size));
            boolean read = crc(local, size) == crc(remote, size);
            fill(local, size);
            get(client.write(local, 0, token, 0, size));
            get(client.read(local, MAX - 1, token, 0, 0)); // the peer placed the write once this returns
            boolean write = crc(local, size) == crc(remote, size);
            CompletableFuture<?> rx = server.receive(remote, 0, MAX);
            fill(local, size * 3L);
            get(client.send(local, 0, size));
            get(rx);
            boolean send = crc(local, size) == crc(remote, size);
            out.printf("  %8d B  read %s  write %s  send %s%n", size, ok(read), ok(write), ok(send));
            intact &= read && write && send;
        }
        try (TcpBaseline tcp = new TcpBaseline()) {
            out.println("READ latency, microseconds (soft provider | TCP request/response, same run):");
            out.println("      size     p50     p99   |     p50     p99   ratio p50");
            for (int size : SIZES) {
                int n = size > 4096 ? 500 : 2000;
                double[] soft = percentiles(n, () -> get(client.read(local, 0, token, 0, size)));
                double[] base = percentiles(n, () -> tcp.roundTrip(size));
                out.printf("  %8d %7.1f %7.1f   | %7.1f %7.1f   %5.2fx%n", size, soft[0], soft[1], base[0], base[1],
                        soft[0] / base[0]);
            }
            double softMbps = readThroughput(local, token);
            double tcpMbps = tcp.streamThroughput();
            out.printf("READ throughput, 64 KiB x 16 in flight: %.0f MB/s | TCP stream %.0f MB/s  ratio %.2fx%n",
                    softMbps, tcpMbps, softMbps / tcpMbps);
        }
        local.close();
        remote.close();
        return intact;
    }

    private double readThroughput(MemoryRegion local, RemoteBuffer token) throws Exception {
        int chunk = 64 * 1024;
        int window = 16;
        CompletableFuture<?>[] ring = new CompletableFuture<?>[window];
        long bytes = 0;
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(700);
        for (int i = 0; System.nanoTime() < end; i++) {
            int slot = i % window;
            if (ring[slot] != null) {
                get(ring[slot]);
                bytes += chunk;
            }
            ring[slot] = client.read(local, slot * chunk, token, slot * chunk, chunk);
        }
        for (CompletableFuture<?> f : ring) {
            if (f != null) {
                get(f);
                bytes += chunk;
            }
        }
        return bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
    }

    private interface Action {
        void run() throws Exception;
    }

    private static double[] percentiles(int n, Action action) throws Exception {
        for (int i = 0; i < n / 4; i++) {
            action.run(); // warm-up
        }
        long[] samples = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            action.run();
            samples[i] = System.nanoTime() - t0;
        }
        Arrays.sort(samples);
        return new double[] {samples[n / 2] / 1e3, samples[(int) (n * 0.99)] / 1e3};
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(15, TimeUnit.SECONDS);
    }

    private static void fill(MemoryRegion region, long seed) {
        ByteBuffer b = region.buffer();
        Random r = new Random(seed);
        while (b.remaining() >= 8) {
            b.putLong(r.nextLong());
        }
    }

    private static long crc(MemoryRegion region, int size) {
        CRC32C c = new CRC32C();
        c.update(region.buffer().limit(size));
        return c.getValue();
    }

    private static String ok(boolean good) {
        return good ? "ok" : "CORRUPT";
    }

    /** A loopback TCP server answering 28-byte requests with the asked size, or streaming 64 KiB chunks. */
    private static final class TcpBaseline implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        private final Socket requests;
        private final Socket stream;

        TcpBaseline() throws IOException {
            Thread server = new Thread(this::serve, "demo-tcp-baseline");
            server.setDaemon(true);
            server.start();
            requests = connect();
            stream = connect();
        }

        private Socket connect() throws IOException {
            Socket s = new Socket(listener.getInetAddress(), listener.getLocalPort());
            s.setTcpNoDelay(true);
            s.getOutputStream().write(1); // lets the server tell the two connections apart by order
            return s;
        }

        private void serve() {
            try {
                for (int i = 0; i < 2; i++) {
                    Socket s = listener.accept();
                    s.setTcpNoDelay(true);
                    boolean isStream = i == 1;
                    Thread t = new Thread(() -> handle(s, isStream), "demo-tcp-peer");
                    t.setDaemon(true);
                    t.start();
                }
            } catch (IOException e) {
                // closed
            }
        }

        private static void handle(Socket s, boolean isStream) {
            byte[] response = new byte[MAX];
            try (s) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                in.readByte();
                if (isStream) {
                    while (true) {
                        out.write(response, 0, 64 * 1024);
                    }
                }
                byte[] request = new byte[28];
                while (true) {
                    in.readFully(request);
                    int size = ByteBuffer.wrap(request).getInt();
                    out.write(response, 0, size);
                }
            } catch (IOException e) {
                // the demo closed the connection
            }
        }

        void roundTrip(int size) throws IOException {
            byte[] request = ByteBuffer.allocate(28).putInt(size).array();
            requests.getOutputStream().write(request);
            new DataInputStream(requests.getInputStream()).readFully(new byte[size]);
        }

        double streamThroughput() throws IOException {
            DataInputStream in = new DataInputStream(stream.getInputStream());
            byte[] chunk = new byte[64 * 1024];
            long bytes = 0;
            long start = System.nanoTime();
            long end = start + TimeUnit.MILLISECONDS.toNanos(700);
            while (System.nanoTime() < end) {
                in.readFully(chunk);
                bytes += chunk.length;
            }
            return bytes / ((System.nanoTime() - start) / 1e9) / 1e6;
        }

        @Override
        public void close() throws IOException {
            requests.close();
            stream.close();
            listener.close();
        }
    }
}
