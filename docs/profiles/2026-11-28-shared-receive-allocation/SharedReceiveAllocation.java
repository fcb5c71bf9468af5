import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.IdleStrategy;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.SharedReceiveCallback;
import dev.rdmafutures.SharedReceiveQueue;
import dev.rdmafutures.Status;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes the server's poller threads allocate per receive of a shared receive queue, in steady state: four soft
 * connections on POLLERS server pollers send 8 B into one queue of 64 receives, each receive re-posted from its
 * callback with a slice made once, each Send re-sent from its completion (8 in flight per connection). Read from
 * com.sun.management.ThreadMXBean over three 2 s windows after 3 s of warm-up.
 *
 * <p>Usage (from the repository, after mvn install): javac -cp CP -d /tmp/a SharedReceiveAllocation.java, then
 * java -cp /tmp/a:CP SharedReceiveAllocation POLLERS, CP being framework/target/classes and its dependencies.
 */
public class SharedReceiveAllocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        int pollers = Integer.parseInt(args[0]);
        int depth = 64;
        int slot = 64;
        int connections = 4;
        int window = 8;
        RdmaRuntime server = RdmaRuntime.builder().pollerThreads(pollers).threadNamePrefix("srv")
                .idleStrategy(IdleStrategy.YIELD).build();
        RdmaRuntime client = RdmaRuntime.builder().pollerThreads(1).threadNamePrefix("cli")
                .idleStrategy(IdleStrategy.YIELD).build();
        SharedReceiveQueue queue = server.sharedReceiveQueue(depth, 1);
        RdmaListener listener = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        List<RdmaConnection> clients = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            var connecting = client.connector().connect(listener.localAddress()).start();
            listener.next().join().withSharedReceiveQueue(queue).accept().join();
            clients.add(connecting.join());
        }
        MemoryRegion buffer = server.register(ByteBuffer.allocateDirect(depth * slot), Access.LOCAL_WRITE);
        RegionSlice[] slices = new RegionSlice[depth];
        for (int i = 0; i < depth; i++) {
            slices[i] = buffer.slice(i * slot, slot);
        }
        AtomicLong received = new AtomicLong();
        SharedReceiveCallback repost = new SharedReceiveCallback() {
            @Override
            public void received(long context, RdmaConnection connection, int bytes) {
                received.incrementAndGet();
                Status status = queue.receive(slices[(int) context], this, context);
                if (status != Status.SUCCESS) {
                    throw new IllegalStateException("re-post refused: " + status);
                }
            }

            @Override
            public void failed(long context, RdmaException error) {
                error.printStackTrace();
            }
        };
        for (int i = 0; i < depth; i++) {
            queue.receive(slices[i], repost, i);
        }
        MemoryRegion source = client.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE);
        for (RdmaConnection c : clients) {
            CompletionCallback resend = new CompletionCallback() {
                @Override
                public void completed(long context, int bytes) {
                    c.send(source, OperationFlags.NONE, this, 0);
                }

                @Override
                public void failed(long context, RdmaException error) {
                    error.printStackTrace();
                }
            };
            for (int w = 0; w < window; w++) {
                c.send(source, OperationFlags.NONE, resend, 0);
            }
        }
        Thread.sleep(3000);
        long[] ids = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("srv"))
                .mapToLong(Thread::getId).toArray();
        for (int round = 0; round < 3; round++) {
            long receivedBefore = received.get();
            long bytesBefore = Arrays.stream(THREADS.getThreadAllocatedBytes(ids)).sum();
            Thread.sleep(2000);
            long receives = received.get() - receivedBefore;
            long bytes = Arrays.stream(THREADS.getThreadAllocatedBytes(ids)).sum() - bytesBefore;
            System.out.printf("pollers %d: %d receives, %.1f B per receive on the server's %d thread(s)%n",
                    pollers, receives, (double) bytes / receives, ids.length);
        }
        System.exit(0);
    }
}
