package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.ConnectionRequest;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.FaultRows;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.soft.mpa.MpaMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hostile peers at a soft listener (issue 15, item 3): hundreds of TCP connections that never send an MPA request,
 * and one that dribbles its request a byte at a time, slower than the handshake deadline. Legitimate connects keep
 * being accepted meanwhile, every half-open socket is closed once the deadline passes, and the heap stays bounded.
 */
class SoftHalfOpenPeersTest extends ConformanceSupport {
    private static final Logger LOG = LoggerFactory.getLogger(SoftHalfOpenPeersTest.class);
    private static final Duration HANDSHAKE = Duration.ofMillis(500);
    private static final int HALF_OPEN = 300;
    private static final int LEGITIMATE = 20;
    /** The dribbler's pace: one byte of its MPA Request this often, far slower than the handshake deadline. */
    private static final Duration DRIBBLE_EVERY = Duration.ofMillis(100);

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    /** Whether {@code socket}'s peer closed it (end of stream or reset) within {@code wait}. */
    private static boolean closedByServer(Socket socket, Duration wait) throws IOException {
        socket.setSoTimeout((int) wait.toMillis());
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /**
     * The slow-loris peer: writes {@code bytes} to {@code socket} one at a time, the first at once and then one every
     * {@code every}, on a scheduler thread of its own. The future completes true when a write fails (the listener
     * cut the socket off), false when every byte went out.
     */
    private CompletableFuture<Boolean> dribble(Socket socket, ByteBuffer bytes, Duration every) {
        ScheduledExecutorService pace = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "dribbler"));
        closeLater((AutoCloseable) pace::shutdownNow);
        CompletableFuture<Boolean> cutOff = new CompletableFuture<>();
        cutOff.whenComplete((done, error) -> pace.shutdown()); // a periodic task does not outlive its executor
        pace.scheduleWithFixedDelay(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                out.write(bytes.get());
                out.flush();
                if (!bytes.hasRemaining()) {
                    cutOff.complete(false);
                }
            } catch (IOException closed) {
                cutOff.complete(true); // the listener closed it at the deadline: what the test expects
            }
        }, 0, every.toNanos(), TimeUnit.NANOSECONDS);
        return cutOff;
    }

    @Test
    void halfOpenAndDribblingPeersAreClosedAtTheDeadlineWhileRealConnectsGoOn() throws Exception {
        RdmaRuntime guarded = closeLater(fixture().runtimeBuilder().handshakeTimeout(HANDSHAKE).build());
        RdmaListener listener = closeLater(guarded.listen(anyPort()));
        listener.onRequest(ConnectionRequest::accept);
        InetSocketAddress at = listener.localAddress();
        System.gc();
        long heapBefore = usedHeap();

        List<Socket> silent = new ArrayList<>();
        for (int i = 0; i < HALF_OPEN; i++) {
            silent.add(closeLater(new Socket(at.getAddress(), at.getPort())));
        }
        Socket dribbler = closeLater(new Socket(at.getAddress(), at.getPort()));
        ByteBuffer request = MpaMessage.request(true, 4, 4, false, 0, new byte[0]).encode();
        CompletableFuture<Boolean> dribbling = dribble(dribbler, request, DRIBBLE_EVERY);

        long start = System.nanoTime();
        for (int i = 0; i < LEGITIMATE; i++) {
            RdmaConnection connection = await(client.connector().connect(at).start());
            assertThat(connection.isConnected()).isTrue();
            await(connection.disconnect());
        }
        double perSecond = LEGITIMATE / ((System.nanoTime() - start) / 1e9);
        LOG.info("{} legitimate connects at {}/s beside {} half-open sockets and a dribbler", LEGITIMATE,
                String.format("%.0f", perSecond), HALF_OPEN);

        Duration wait = HANDSHAKE.multipliedBy(6);
        for (Socket socket : silent) {
            assertThat(closedByServer(socket, wait)).as("a half-open socket closed at the handshake deadline")
                    .isTrue();
        }
        assertThat(dribbling).as("the dribbler was cut off").succeedsWithin(wait.multipliedBy(4)).isEqualTo(true);
        assertThat(closedByServer(dribbler, wait)).as("the dribbler's socket closed").isTrue();
        System.gc();
        assertThat(usedHeap() - heapBefore).as("heap growth").isLessThan(64L << 20);
        assertThat(guarded.pollerErrorCount()).isZero();
        assertThat(guarded.metrics().accepts()).isEqualTo(LEGITIMATE);
        FaultRows.row(HALF_OPEN + " TCP connects that never send MPA, 1 dribbling 1 B/100 ms", "soft", 0,
                "all " + (HALF_OPEN + 1) + " sockets closed", "at the handshake deadline (" + HANDSHAKE.toMillis()
                        + " ms)", String.format("yes, %d connects at %.0f/s meanwhile", LEGITIMATE, perSecond),
                "heap growth < 64 MiB");
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
