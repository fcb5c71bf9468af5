package dev.rdmafutures.samples;

import dev.rdmafutures.Access;
import dev.rdmafutures.Completion;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RemoteBuffer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An rping-compatible client and server (the protocol of librdmacm's {@code rping}). Each iteration: the client
 * advertises its start buffer with a Send of {@code {be64 address, be32 rkey, be32 size}}; the server RDMA Reads
 * it and acknowledges with a Send; the client advertises its RDMA buffer; the server RDMA Writes the data back
 * and acknowledges; the client checks the echo. Both directions of one-sided traffic, against Linux {@code rping}
 * on siw or against itself.
 *
 * <pre>
 *   java ... RpingPeer client HOST [PORT [COUNT [SIZE]]]   # against: rping -s -a HOST -p PORT
 *   java ... RpingPeer server [PORT [COUNT]]               # against: rping -c -a HOST -p PORT -C COUNT -V
 * </pre>
 * Defaults: port 7174, count 10, size 64 (rping's). Exits 0 when every iteration echoed correctly.
 */
public final class RpingPeer {
    private static final int INFO = 16;
    private static final long WAIT_S = 30;

    private RpingPeer() {
    }

    public static void main(String[] args) throws Exception {
        boolean client = args.length > 0 && args[0].equals("client");
        if (args.length < 1 || (!client && !args[0].equals("server")) || (client && args.length < 2)) {
            System.err.println("usage: RpingPeer client HOST [PORT [COUNT [SIZE]]] | server [PORT [COUNT]]");
            System.exit(2);
        }
        int first = client ? 2 : 1;
        int port = args.length > first ? Integer.parseInt(args[first]) : 7174;
        int count = args.length > first + 1 ? Integer.parseInt(args[first + 1]) : 10;
        int size = client && args.length > first + 2 ? Integer.parseInt(args[first + 2]) : 64;
        try (RdmaRuntime runtime = RdmaRuntime.builder().provider(System.getProperty("provider", "soft")).build()) {
            boolean ok = client
                    ? runClient(runtime, new InetSocketAddress(InetAddress.getByName(args[1]), port), count, size)
                    : runServer(runtime, port, count);
            System.out.println(ok ? "rping: " + count + " iterations OK" : "rping: FAILED");
            System.exit(ok ? 0 : 1);
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_S, TimeUnit.SECONDS);
    }

    private static void advertise(RdmaConnection c, MemoryRegion info, MemoryRegion buffer) throws Exception {
        RemoteBuffer r = buffer.remote();
        info.buffer().putLong(0, r.address()).putInt(8, r.token()).putInt(12, r.length());
        await(c.send(info.slice(0, INFO), OperationFlags.NONE));
    }

    private static RemoteBuffer advertised(MemoryRegion info) {
        ByteBuffer b = info.buffer();
        return new RemoteBuffer(b.getLong(0), b.getInt(12), b.getInt(8));
    }

    static boolean runClient(RdmaRuntime runtime, InetSocketAddress server, int count, int size) throws Exception {
        MemoryRegion start = runtime.register(ByteBuffer.allocateDirect(size), Access.REMOTE_READ);
        MemoryRegion echo = runtime.register(ByteBuffer.allocateDirect(size), Access.LOCAL_WRITE,
                Access.REMOTE_WRITE);
        MemoryRegion send = runtime.register(ByteBuffer.allocateDirect(INFO), Access.LOCAL_WRITE);
        MemoryRegion recv = runtime.register(ByteBuffer.allocateDirect(INFO), Access.LOCAL_WRITE);
        RdmaConnection c = await(runtime.connector().connect(server).withReadLimits(1, 1).start());
        for (int ping = 0; ping < count; ping++) {
            byte[] text = pattern(ping, size);
            start.buffer().put(text);
            echo.buffer().put(new byte[size]);
            CompletableFuture<Completion> readDone = c.receive(recv.slice(0, INFO));
            advertise(c, send, start);
            await(readDone);
            CompletableFuture<Completion> writeDone = c.receive(recv.slice(0, INFO));
            advertise(c, send, echo);
            await(writeDone);
            byte[] back = new byte[size];
            echo.buffer().get(back);
            if (!java.util.Arrays.equals(back, text)) {
                System.out.println("rping: data mismatch at ping " + ping + ": "
                        + new String(back, StandardCharsets.US_ASCII));
                return false;
            }
            System.out.println("ping data: " + new String(text, 0, size - 1, StandardCharsets.US_ASCII));
        }
        await(c.disconnect());
        return true;
    }

    static boolean runServer(RdmaRuntime runtime, int port, int count) throws Exception {
        RdmaListener listener = runtime.listen(new InetSocketAddress(port));
        System.out.println("rping server listening on " + listener.localAddress());
        MemoryRegion data = runtime.register(ByteBuffer.allocateDirect(1 << 20), Access.LOCAL_WRITE);
        MemoryRegion send = runtime.register(ByteBuffer.allocateDirect(INFO), Access.LOCAL_WRITE);
        MemoryRegion recv = runtime.register(ByteBuffer.allocateDirect(INFO), Access.LOCAL_WRITE);
        RdmaConnection c = await(await(listener.next()).withReadLimits(1, 1).accept());
        for (int ping = 0; ping < count; ping++) {
            await(c.receive(recv.slice(0, INFO)));
            RemoteBuffer start = advertised(recv);
            int size = Math.min(start.length(), data.length());
            await(c.read(data.slice(0, size), start, 0, OperationFlags.NONE));
            int length = stringLength(data, size) + 1; // rping echoes the C string with its NUL
            System.out.println("server ping data: " + new String(bytes(data, length - 1), StandardCharsets.US_ASCII));
            CompletableFuture<Completion> writeAdvertised = c.receive(recv.slice(0, INFO));
            await(c.send(send.slice(0, INFO), OperationFlags.NONE));
            await(writeAdvertised);
            RemoteBuffer target = advertised(recv);
            await(c.write(data.slice(0, Math.min(length, target.length())), target, 0, OperationFlags.NONE));
            await(c.send(send.slice(0, INFO), OperationFlags.NONE));
        }
        await(c.disconnected());
        return true;
    }

    /** rping's payload: "rdma-ping-N: " then printable characters, NUL-terminated, {@code size} bytes in all. */
    static byte[] pattern(int ping, int size) {
        byte[] b = new byte[size];
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(head.length, size - 1);
        System.arraycopy(head, 0, b, 0, n);
        for (int i = n, ch = 65 + ping % 26; i < size - 1; i++, ch = ch == 122 ? 65 : ch + 1) {
            b[i] = (byte) ch;
        }
        return b;
    }

    private static int stringLength(MemoryRegion region, int max) {
        ByteBuffer b = region.buffer();
        for (int i = 0; i < max; i++) {
            if (b.get(i) == 0) {
                return i;
            }
        }
        return max - 1;
    }

    private static byte[] bytes(MemoryRegion region, int n) {
        byte[] out = new byte[n];
        region.buffer().get(out);
        return out;
    }
}
