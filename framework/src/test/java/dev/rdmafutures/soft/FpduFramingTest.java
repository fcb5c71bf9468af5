package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class FpduFramingTest {

    @Test
    void padBringsLengthAndUlpduToAFourByteBoundary() {
        for (int ulpdu = 0; ulpdu < 16; ulpdu++) {
            assertThat((2 + ulpdu + FpduFraming.padFor(ulpdu)) % 4).isZero();
            assertThat(FpduFraming.padFor(ulpdu)).isBetween(0, 3);
        }
        assertThat(FpduFraming.fpduLength(14)).as("a zero-length RDMA Write: 2 + 14 + 0 + 4").isEqualTo(20);
    }

    @Test
    void theCrcCoversLengthUlpduAndPadAndIsSentLeastSignificantByteFirst() {
        byte[] payload = "123456789".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer out = ByteBuffer.allocate(FpduFraming.fpduLength(payload.length));
        new FpduFraming(true).frame(ByteBuffer.wrap(payload), out);
        out.flip();
        int covered = out.limit() - 4;
        CRC32C crc = new CRC32C();
        crc.update(out.slice(0, covered));
        long value = crc.getValue();
        assertThat(out.get(covered) & 0xFF).isEqualTo((int) (value & 0xFF));
        assertThat(out.get(covered + 3) & 0xFF).isEqualTo((int) (value >>> 24));
    }

    @Test
    void framesRoundTripAndACorruptedByteIsCaught() throws Exception {
        FpduFraming framing = new FpduFraming(true);
        ByteBuffer wire = ByteBuffer.allocate(64);
        framing.frame(DdpHeader.zeroLengthWrite(), wire);
        wire.flip();
        ByteBuffer ulpdu = framing.unframe(wire.duplicate(), 14, 0xFFFF);
        assertThat(DdpHeader.isZeroLengthWrite(ulpdu)).isTrue();

        wire.put(5, (byte) (wire.get(5) ^ 1));
        assertThatThrownBy(() -> framing.unframe(wire.duplicate(), 14, 0xFFFF))
                .isInstanceOf(MpaProtocolException.class).hasMessageContaining("CRC");
    }

    @Test
    void withoutCrcTheTrailerIsZeroAndNotChecked() throws Exception {
        FpduFraming framing = new FpduFraming(false);
        ByteBuffer wire = ByteBuffer.allocate(64);
        framing.frame(DdpHeader.zeroLengthWrite(), wire);
        wire.flip();
        assertThat(wire.getInt(16)).isZero();
        assertThat(framing.unframe(wire, 14, 0xFFFF)).isNotNull();
    }

    @Test
    void partialFramesWaitAndBadLengthsFail() throws Exception {
        FpduFraming framing = new FpduFraming(true);
        ByteBuffer wire = ByteBuffer.allocate(64);
        framing.frame(DdpHeader.zeroLengthWrite(), wire);
        wire.flip();
        assertThat(framing.unframe(wire.slice(0, 19), 14, 0xFFFF)).isNull();
        ByteBuffer tiny = ByteBuffer.allocate(8).putShort((short) 3).flip();
        assertThatThrownBy(() -> framing.unframe(tiny, 14, 0xFFFF)).isInstanceOf(MpaProtocolException.class);
    }
}
