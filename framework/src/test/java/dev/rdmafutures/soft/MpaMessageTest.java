package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.Status;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MpaMessageTest {

    @Test
    void anEnhancedRequestHasTheRfc6581Layout() {
        ByteBuffer b = MpaMessage.request(true, 12, 34, true, MpaMessage.RTR_WRITE, new byte[] {7, 8}).encode();
        assertThat(b.remaining()).isEqualTo(20 + 4 + 2);
        byte[] key = new byte[16];
        b.get(key);
        assertThat(new String(key, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Req Frame");
        assertThat(b.get() & 0xFF).as("flags: C and E set, M and R clear").isEqualTo(0x40 | 0x10);
        assertThat(b.get()).as("revision").isEqualTo((byte) 2);
        assertThat(b.getShort()).as("private data length incl. IRD/ORD").isEqualTo((short) 6);
        assertThat(b.getShort() & 0xFFFF).as("IRD with the peer-to-peer bit").isEqualTo(0x8000 | 12);
        assertThat(b.getShort() & 0xFFFF).as("ORD with the RDMA-Write RTR bit").isEqualTo(0x8000 | 34);
        assertThat(b.get()).isEqualTo((byte) 7);
        assertThat(b.get()).isEqualTo((byte) 8);
    }

    @Test
    void aRejectingReplyRoundTrips() throws Exception {
        MpaMessage request = MpaMessage.request(false, 1, 2, false, 0, new byte[0]);
        MpaMessage reply = MpaMessage.replyTo(request, false, true, 0, 0, false, 0, "no".getBytes());
        ByteBuffer wire = reply.encode();
        assertThat(wire.get(16) & 0x20).as("R bit").isEqualTo(0x20);
        MpaMessage decoded = MpaMessage.decode(wire, true);
        assertThat(decoded.reject()).isTrue();
        assertThat(decoded.privateData()).containsExactly('n', 'o');
        assertThat(wire.hasRemaining()).isFalse();
    }

    @Test
    void partialInputDecodesToNullAndConsumesNothing() throws Exception {
        ByteBuffer whole = MpaMessage.request(true, 5, 6, true, MpaMessage.RTR_WRITE, new byte[100]).encode();
        for (int cut = 0; cut < whole.remaining(); cut += 7) {
            ByteBuffer part = whole.slice(0, cut);
            assertThat(MpaMessage.decode(part, false)).isNull();
            assertThat(part.position()).isZero();
        }
        MpaMessage decoded = MpaMessage.decode(whole, false);
        assertThat(decoded.ird()).isEqualTo(5);
        assertThat(decoded.ord()).isEqualTo(6);
        assertThat(decoded.peerToPeer()).isTrue();
        assertThat(decoded.rtrTypes()).isEqualTo(MpaMessage.RTR_WRITE);
        assertThat(decoded.privateData()).hasSize(100);
    }

    @Test
    void malformedMessagesAreProtocolErrors() {
        ByteBuffer wrongKey = ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> MpaMessage.decode(wrongKey, false)).isInstanceOf(MpaProtocolException.class);

        ByteBuffer tooLong = MpaMessage.request(false, 1, 1, false, 0, new byte[0]).encode();
        tooLong.putShort(18, (short) 513);
        assertThatThrownBy(() -> MpaMessage.decode(tooLong, false)).isInstanceOf(MpaProtocolException.class)
                .extracting(e -> ((MpaProtocolException) e).status()).isEqualTo(Status.INVALID_NETWORK_RESPONSE);

        ByteBuffer revision3 = MpaMessage.request(false, 1, 1, false, 0, new byte[0]).encode();
        revision3.put(17, (byte) 3);
        assertThatThrownBy(() -> MpaMessage.decode(revision3, false))
                .extracting(e -> ((MpaProtocolException) e).status()).isEqualTo(Status.NOT_SUPPORTED);

        ByteBuffer enhancedWithoutHeader = MpaMessage.request(false, 1, 1, false, 0, new byte[0]).encode();
        enhancedWithoutHeader.putShort(18, (short) 2);
        ByteBuffer truncated = enhancedWithoutHeader.slice(0, 22);
        assertThatThrownBy(() -> MpaMessage.decode(truncated, false)).isInstanceOf(MpaProtocolException.class);

        ByteBuffer aRequestWhereAReplyIsDue = MpaMessage.request(false, 1, 1, false, 0, new byte[0]).encode();
        assertThatThrownBy(() -> MpaMessage.decode(aRequestWhereAReplyIsDue, true))
                .isInstanceOf(MpaProtocolException.class);
    }

    @Test
    void aRevisionOneMessageCarriesNoReadLimits() throws Exception {
        ByteBuffer b = MpaMessage.request(false, 1, 1, false, 0, new byte[] {1, 2, 3}).encode();
        b.put(16, (byte) 0).put(17, (byte) 1).putShort(18, (short) 3);
        ByteBuffer v1 = ByteBuffer.allocate(23).put(b.slice(0, 20)).put(new byte[] {1, 2, 3}).flip();
        MpaMessage decoded = MpaMessage.decode(v1, false);
        assertThat(decoded.enhanced()).isFalse();
        assertThat(decoded.revision()).isEqualTo(1);
        assertThat(decoded.privateData()).containsExactly(1, 2, 3);
    }
}
