package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;

/** Which options an RDMA channel takes, which it refuses, and that a refused value changes nothing. */
class RdmaSocketChannelConfigTest {
    private final RdmaSocketChannelConfig config = new RdmaSocketChannel().config();

    @Test
    void tcpOptionsTheStreamAlwaysHonoursAreAcceptedWhenAskedForAndRefusedWhenTurnedOff() {
        assertThat(config.setOption(ChannelOption.SO_KEEPALIVE, true)).isTrue();
        assertThat(config.setOption(ChannelOption.TCP_NODELAY, true)).isTrue();
        assertThat(config.setOption(ChannelOption.SO_KEEPALIVE, false)).isFalse();
        assertThat(config.setOption(ChannelOption.TCP_NODELAY, false)).isFalse();
        assertThat(config.getOption(ChannelOption.SO_KEEPALIVE)).isTrue();
        assertThat(config.getOption(ChannelOption.TCP_NODELAY)).isTrue();
    }

    @Test
    void tcpOptionsWithoutAnRdmaCounterpartAreRefused() {
        assertThat(config.setOption(ChannelOption.SO_LINGER, 0)).isFalse();
        assertThat(config.setOption(ChannelOption.SO_SNDBUF, 1 << 20)).isFalse();
        assertThat(config.setOption(ChannelOption.IP_TOS, 0x10)).isFalse();
        assertThat(config.getOption(ChannelOption.SO_LINGER)).isNull();
    }

    @Test
    void theStreamOptionsDefaultToWhatRdmaChannelOptionDocuments() {
        assertThat(config.getOption(RdmaChannelOption.STREAM_BUFFER_SIZE)).isEqualTo(16 * 1024);
        assertThat(config.getOption(RdmaChannelOption.STREAM_RECEIVE_DEPTH)).isEqualTo(64);
        assertThat(config.getOption(RdmaChannelOption.STREAM_SEND_DEPTH)).isEqualTo(16);
    }

    @Test
    void aStreamOptionOutOfRangeIsRefusedTypedAndChangesNothing() {
        int depth = config.getOption(RdmaChannelOption.STREAM_RECEIVE_DEPTH);
        assertThatThrownBy(() -> config.setOption(RdmaChannelOption.STREAM_RECEIVE_DEPTH, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2");
        assertThat(config.getOption(RdmaChannelOption.STREAM_RECEIVE_DEPTH)).isEqualTo(depth);
        assertThat(config.setOption(RdmaChannelOption.STREAM_RECEIVE_DEPTH, depth + 8)).isTrue();
        assertThat(config.getOption(RdmaChannelOption.STREAM_RECEIVE_DEPTH)).isEqualTo(depth + 8);
    }

    @Test
    void privateDataIsCopiedInAndOut() {
        byte[] data = {1, 2, 3};
        config.setOption(RdmaChannelOption.PRIVATE_DATA, data);
        data[0] = 9;
        byte[] read = config.getOption(RdmaChannelOption.PRIVATE_DATA);
        assertThat(read).containsExactly(1, 2, 3);
        read[1] = 9;
        assertThat(config.getOption(RdmaChannelOption.PRIVATE_DATA)).containsExactly(1, 2, 3);
    }
}
