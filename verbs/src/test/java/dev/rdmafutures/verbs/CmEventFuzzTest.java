package dev.rdmafutures.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rdmafutures.ReadLimits;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Tag;

/**
 * Coverage-guided fuzzing (Jazzer) of the verbs provider's CM event decoding: whatever the native record holds (the
 * kernel's private-data length, read limits and event type, copied by our library), {@link CmEvent} decodes it
 * without an exception, its private data within the record's capacity, its read limits within a byte each. The
 * committed corpus runs in every build; {@code JAZZER_FUZZ=1} fuzzes.
 */
@Tag("jazzer") // its own test JVM, without -Xcheck:jni (verbs/pom.xml)
class CmEventFuzzTest {
    private static final int RECORD =
            NativeLayout.CmEventInfo.PRIVATE_DATA + NativeLayout.CmEventInfo.PRIVATE_DATA_CAPACITY;

    @FuzzTest(maxDuration = "60s")
    void anyRecordDecodesWithinItsBounds(byte[] data) {
        ByteBuffer info = ByteBuffer.allocate(RECORD).order(ByteOrder.nativeOrder());
        info.put(0, data, 0, Math.min(data.length, RECORD));
        CmEvent event = new CmEvent(info);
        byte[] privateData = event.privateData();
        assertThat(privateData.length).isBetween(0, NativeLayout.CmEventInfo.PRIVATE_DATA_CAPACITY);
        ReadLimits limits = event.peerReadLimits();
        assertThat(limits.inbound()).isBetween(0, 255);
        assertThat(limits.outbound()).isBetween(0, 255);
        assertThat(event.peerReadLimitsAsSent()).isEqualTo(new ReadLimits(limits.outbound(), limits.inbound()));
        assertThat(CmEvent.name(event.type())).isNotEmpty();
        assertThat(event.toString()).isNotEmpty();
    }
}
