package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ScatterGatherList}'s checks: each refused segment leaves the list as it was. */
class ScatterGatherListTest {
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
    void segmentsAreKeptInOrderWithTheirTotal() {
        ScatterGatherList list = new ScatterGatherList(3).add(region, 1, 10).add(region, 50, 0).add(region, 99, 1);
        assertThat(list.size()).isEqualTo(3);
        assertThat(list.totalLength()).isEqualTo(11);
        assertThat(list.offset(2)).isEqualTo(99);
        assertThat(list.length(0)).isEqualTo(10);
        assertThat(list.region(1)).isSameAs(region);
        assertThat(list).hasToString("ScatterGatherList[+1:10, +50:0, +99:1]");
        assertThat(list.clear().size()).isZero();
        assertThat(list.totalLength()).isZero();
        assertThat(list.capacity()).isEqualTo(3);
    }

    @Test
    void badSegmentsAndCapacitiesAreRefusedWithTheListUnchanged() {
        assertStatus(Status.INVALID_PARAMETER, () -> new ScatterGatherList(0));
        assertStatus(Status.INVALID_PARAMETER, () -> new ScatterGatherList(ScatterGatherList.MAX_CAPACITY + 1));
        ScatterGatherList list = new ScatterGatherList(2).add(region, 0, 100);
        assertStatus(Status.INVALID_PARAMETER, () -> list.add(region, -1, 1));
        assertStatus(Status.INVALID_PARAMETER, () -> list.add(region, 0, -1));
        assertStatus(Status.ACCESS_VIOLATION, () -> list.add(region, 50, 51));
        assertStatus(Status.ACCESS_VIOLATION, () -> list.add(region, Integer.MAX_VALUE, 1));
        list.add(region, 0, 0);
        assertStatus(Status.INVALID_PARAMETER, () -> list.add(region, 0, 1));
        assertThat(list.size()).isEqualTo(2);
        assertThat(list.totalLength()).isEqualTo(100);
        assertThatThrownBy(() -> list.region(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> list.add(null, 0, 1)).isInstanceOf(NullPointerException.class);
    }
}
