package dev.rdmafutures.jmh;

import java.nio.ByteBuffer;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The state of a busy-polling NIO ping-pong baseline ({@link SocketBaselines#pingPong}): a request of
 * {@link #requestSize()} bytes answered with {@code size} bytes, two threads busy.
 */
@State(Scope.Benchmark)
public abstract class NioPingPong {
    @Param({"8", "4096", "65536"})
    public int size;
    SocketBaselines pingPong;
    ByteBuffer request;
    ByteBuffer response;

    /** The request's size for a response of {@code size} bytes. */
    abstract int requestSize();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pingPong = SocketBaselines.pingPong(requestSize(), size);
        request = ByteBuffer.allocateDirect(requestSize());
        response = ByteBuffer.allocateDirect(size);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pingPong.close();
    }

    /** One request/response round trip. */
    ByteBuffer roundTrip() throws Exception {
        pingPong.roundTrip(request, response);
        return response;
    }
}
