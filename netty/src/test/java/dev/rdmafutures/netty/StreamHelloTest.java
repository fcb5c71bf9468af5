package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class StreamHelloTest {
    @Test
    void aHelloRoundTripsWithTheApplicationsPrivateDataAfterIt() {
        byte[] encoded = StreamHello.encode(new StreamSettings(4096, 8, 4), new byte[] {7, 8, 9});
        StreamHello hello = StreamHello.decode(encoded);
        assertThat(hello.receiveDepth()).isEqualTo(8);
        assertThat(hello.bufferSize()).isEqualTo(4096);
        assertThat(hello.applicationData()).containsExactly(7, 8, 9);
    }

    @Test
    void foreignShortOrOutOfRangeHellosAreRefused() {
        assertThat(StreamHello.decode(null)).isNull();
        assertThat(StreamHello.decode(new byte[11])).isNull();
        assertThat(StreamHello.decode("GET / HTTP/1.1\r\n".getBytes())).isNull();
        assertThat(StreamHello.decode(hello(StreamHello.VERSION + 1, 8, 4096))).isNull();
        assertThat(StreamHello.decode(hello(StreamHello.VERSION, 3, 4096))).isNull();
        assertThat(StreamHello.decode(hello(StreamHello.VERSION, 8, 63))).isNull();
        assertThat(StreamHello.decode(hello(StreamHello.VERSION, 8, Integer.MAX_VALUE))).isNull();
        assertThat(StreamHello.decode(hello(StreamHello.VERSION, 8, 64))).isNotNull();
    }

    @Test
    void settingsOutOfRangeAreRefusedAtOnce() {
        assertThatThrownBy(() -> new StreamSettings(4096, 3, 16)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receive depth 3");
        assertThatThrownBy(() -> new StreamSettings(32, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StreamSettings(16 * 1024 * 1024, 128, 16))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("would register");
    }

    private static byte[] hello(int version, int depth, int bufferSize) {
        return ByteBuffer.allocate(StreamHello.BYTES).putInt(StreamHello.MAGIC).put((byte) version).put((byte) 0)
                .putShort((short) depth).putInt(bufferSize).array();
    }
}
