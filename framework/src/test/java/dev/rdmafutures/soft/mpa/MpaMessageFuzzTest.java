package dev.rdmafutures.soft.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;

/**
 * Coverage-guided fuzzing (Jazzer) of the MPA request/reply parser: whatever a peer sends, {@code decode} returns a
 * message, asks for more bytes without consuming any, or throws its typed {@link MpaProtocolException}; a message it
 * returns consumed exactly its bytes and encodes back to bytes that decode to the same message. The committed corpus
 * ({@code MpaMessageFuzzTestInputs}) runs in every build; {@code JAZZER_FUZZ=1} fuzzes (docs/testing.md).
 */
@Tag("jazzer") // its own test JVM, without -Xcheck:jni (framework/pom.xml)
class MpaMessageFuzzTest {
    @FuzzTest(maxDuration = "60s")
    void anyBytesDecodeToAMessageOrATypedRefusal(byte[] data) {
        for (boolean expectReply : new boolean[] {false, true}) {
            ByteBuffer in = ByteBuffer.wrap(data);
            MpaMessage message;
            try {
                message = MpaMessage.decode(in, expectReply);
            } catch (MpaProtocolException refused) {
                assertThat(refused.status()).isNotNull();
                continue;
            }
            if (message == null) {
                assertThat(in.position()).as("nothing consumed while more bytes are needed").isZero();
                continue;
            }
            int consumed = in.position();
            assertThat(consumed).isBetween(MpaMessage.HEADER_LENGTH, data.length);
            ByteBuffer encoded = message.encode();
            MpaMessage again;
            try {
                again = MpaMessage.decode(encoded, expectReply);
            } catch (MpaProtocolException e) {
                throw new AssertionError("a decoded message does not decode once encoded: " + message, e);
            }
            assertThat(again).as("encode then decode").usingRecursiveComparison().isEqualTo(message);
        }
    }
}
