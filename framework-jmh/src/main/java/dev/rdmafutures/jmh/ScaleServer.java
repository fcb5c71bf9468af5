package dev.rdmafutures.jmh;

import dev.rdmafutures.Access;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The child JVM of {@link ServerProcess}: a server runtime (one busy-spinning poller, as in the READ benchmarks)
 * listening on 127.0.0.1..127.0.0.k, one listener per {@value ConnectionScale#PER_LISTENER} connections (Linux routes
 * all of 127/8 to lo). It prints its listeners and an 8 B region, accepts every request, and answers the commands
 * {@code state}, {@code memory} and {@code quit} on its standard input. Also the memory and descriptor checks both
 * processes use.
 *
 * <p>Usage: {@code ScaleServer N}.
 */
final class ScaleServer {
    private static final int BACKLOG = 1024;
    private static final int SIZE = 8;
    /** File descriptors the JVM, the selectors and the listeners need beside the connections' sockets. */
    private static final int SPARE_DESCRIPTORS = 256;

    private ScaleServer() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        checkDescriptors(n);
        serve(n);
    }

    /** Serves {@code n} connections until told to quit. */
    private static void serve(int n) throws IOException, InterruptedException {
        AtomicInteger accepted = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (RdmaRuntime server = Pair.builder("soft").threadNamePrefix("scale-server").pollerThreads(1)
                .idleStrategy(IdleStrategy.BUSY_SPIN).listenBacklog(BACKLOG).build()) {
            StringBuilder listening = new StringBuilder("listening");
            for (int i = 0; i < (n + ConnectionScale.PER_LISTENER - 1) / ConnectionScale.PER_LISTENER; i++) {
                RdmaListener l = server.listen(new InetSocketAddress(InetAddress.getByAddress(
                        new byte[] {127, 0, 0, (byte) (i + 1)}), 0));
                l.onRequest(r -> r.accept().whenComplete((c, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else {
                        accepted.incrementAndGet();
                    }
                }));
                listening.append(' ').append(ChildJvm.format(l.localAddress()));
            }
            System.out.println(listening);
            MemoryRegion region = server.register(ByteBuffer.allocateDirect(SIZE), Access.LOCAL_WRITE,
                    Access.REMOTE_READ);
            System.out.println("region " + HexFormat.of().formatHex(region.remote().encode()));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command; (command = in.readLine()) != null && !command.equals("quit"); ) {
                switch (command) {
                    case "state" -> System.out.println(failure.get() != null ? "error an accept failed: "
                            + failure.get() : "state " + accepted.get() + " " + server.metrics().open());
                    case "memory" -> {
                        long[] m = memory();
                        System.out.println("memory " + m[0] + " " + m[1] + " " + m[2]);
                    }
                    default -> System.out.println("error unknown command: " + command);
                }
            }
        }
    }

    /**
     * Heap used after a full GC, direct buffer bytes, and the resident set (VmRSS) of this JVM, in bytes. A direct
     * buffer's memory is freed by its cleaner after the GC found it unreachable, so it collects until two readings in
     * a row agree (at most 3 s).
     */
    static long[] memory() throws IOException, InterruptedException {
        long heap = -1;
        long direct = -1;
        for (int i = 0; i < 30; i++) {
            System.gc();
            Thread.sleep(100);
            long h = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long d = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                    .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
            if (h == heap && d == direct) {
                break;
            }
            heap = h;
            direct = d;
        }
        long rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).findFirst().orElse(0);
        return new long[] {heap, direct, rss};
    }

    /** Fails with what to do when the process may open fewer descriptors than {@code n} connections need. */
    static void checkDescriptors(int n) {
        long need = n + (n + ConnectionScale.PER_LISTENER - 1) / ConnectionScale.PER_LISTENER + SPARE_DESCRIPTORS;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os
                && os.getMaxFileDescriptorCount() < need) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%d connections need about %d file descriptors"
                    + " in each of the two processes, but the limit is %d: raise it first, e.g. 'ulimit -n 65536' "
                    + "(as root) or 'prlimit --nofile=65536 --pid <shell pid>'", n, need,
                    os.getMaxFileDescriptorCount()));
        }
    }
}
