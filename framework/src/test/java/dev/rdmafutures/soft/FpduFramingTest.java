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
    void anFpduFinishedInPlaceEqualsOneWhosePayloadIsGatheredFromSeveralViews() {
        for (boolean crc : new boolean[] {true, false}) {
            FpduFraming framing = new FpduFraming(crc);
            for (int payloadLength = 0; payloadLength < 9; payloadLength++) { // every pad, 0 to 3
                ByteBuffer head = ByteBuffer.allocate(16).putShort((short) (14 + payloadLength));
                DdpHeader.putTagged(head, 1, true, 0x1234, 0x10);
                head.flip();
                ByteBuffer payload = ByteBuffer.allocate(payloadLength);
                for (int i = 0; i < payloadLength; i++) {
                    payload.put(i, (byte) (31 * i + 7));
                }
                // The payload as two views, as a gathering writer queues a DDP segment spanning two segments.
                ByteBuffer first = payload.duplicate().limit(payloadLength / 3);
                ByteBuffer second = payload.duplicate().position(payloadLength / 3);
                CRC32C covered = new CRC32C();
                for (ByteBuffer b : new ByteBuffer[] {head, first, second}) {
                    FpduFraming.update(covered, b, b.position(), b.remaining());
                }
                ByteBuffer trailer = ByteBuffer.allocate(7);
                framing.trailer(covered, 14 + payloadLength, trailer);
                ByteBuffer gathered = ByteBuffer.allocate(64).put(head.duplicate()).put(first.duplicate())
                        .put(second.duplicate()).put(trailer.flip()).flip();

                ByteBuffer inPlace = ByteBuffer.allocate(64).put(10, head.duplicate(), 0, head.remaining())
                        .position(10 + head.remaining()).put(payload.duplicate());
                framing.finish(inPlace, 10);
                inPlace.flip().position(10);

                assertThat(inPlace).as("crc %s, payload %d", crc, payloadLength).isEqualTo(gathered);
                assertThat(gathered.remaining()).isEqualTo(FpduFraming.fpduLength(14 + payloadLength));
            }
        }
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
