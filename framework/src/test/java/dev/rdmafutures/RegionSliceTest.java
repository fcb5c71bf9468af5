package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link RegionSlice}: a span checked against its region when it is made. */
class RegionSliceTest {
    private final RdmaRuntime runtime = RdmaRuntime.builder().provider("soft").build();
    private final MemoryRegion region = runtime.register(ByteBuffer.allocateDirect(100), Access.LOCAL_WRITE);

    @AfterEach
    void close() {
        runtime.close();
    }

    private static void assertStatus(Status expected, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RdmaException.class)
                .extracting(e -> ((RdmaException) e).status()).isEqualTo(expected);
    }

    @Test
    void aSpanInsideTheRegionIsKeptAsGiven() {
        RegionSlice slice = region.slice(10, 90);
        assertThat(slice.region()).isSameAs(region);
        assertThat(slice.offset()).isEqualTo(10);
        assertThat(slice.length()).isEqualTo(90);
        assertThat(region.slice(100, 0).length()).isZero();
        assertThat(new RegionSlice(region, 0, 100)).isEqualTo(region.slice(0, 100));
    }

    @Test
    void aSpanOutsideTheRegionOrNegativeIsRefusedWithItsStatus() {
        assertStatus(Status.INVALID_PARAMETER, () -> region.slice(-1, 4));
        assertStatus(Status.INVALID_PARAMETER, () -> region.slice(0, -4));
        assertStatus(Status.ACCESS_VIOLATION, () -> region.slice(97, 4));
        assertStatus(Status.ACCESS_VIOLATION, () -> region.slice(Integer.MAX_VALUE, 1));
        assertThatThrownBy(() -> new RegionSlice(null, 0, 0)).isInstanceOf(NullPointerException.class);
    }
}
