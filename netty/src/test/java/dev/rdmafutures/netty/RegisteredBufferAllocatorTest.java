package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rdmafutures.RdmaRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Blocks of registered memory handed out as Netty buffers, and every block back once its buffer is released. */
class RegisteredBufferAllocatorTest {
    private final RdmaRuntime runtime = RdmaRuntime.builder().pollerThreads(0).build();
    private final RegisteredBufferAllocator allocator = new RegisteredBufferAllocator(runtime, ByteBufAllocator.DEFAULT);

    @BeforeEach
    void needsUnsafe() {
        assumeTrue(PlatformDependent.hasUnsafe(), "Netty runs without Unsafe here (its default on Java 25 and later), "
                + "and the allocator then hands out the default allocator's buffers only: "
                + "RegisteredBufferAllocatorWithoutUnsafeTest covers it");
    }

    @AfterEach
    void close() {
        allocator.close();
        runtime.close();
    }

    @Test
    void aDirectBufferLiesInARegisteredSlabAndItsBlockReturnsOnRelease() {
        ByteBuf buf = allocator.directBuffer(70_000);
        assertThat(buf.capacity()).isEqualTo(70_000);
        assertThat(buf.readableBytes()).isZero();
        assertThat(allocator.slabOf(buf.memoryAddress(), 70_000)).isNotNull();
        assertThat(allocator.bytesInUse()).isEqualTo(128 * 1024);
        ByteBuf slice = buf.retainedSlice(0, 100);
        buf.release();
        assertThat(allocator.bytesInUse()).as("a slice still holds it").isEqualTo(128 * 1024);
        slice.release();
        assertThat(allocator.bytesInUse()).isZero();
    }

    @Test
    void aGrowingBufferKeepsItsBytesAndReturnsEveryBlockItLeft() {
        ByteBuf buf = allocator.buffer(RegisteredBufferAllocator.MIN_CAPACITY);
        for (int i = 0; i < 300_000; i++) {
            buf.writeByte(i);
        }
        assertThat(buf.capacity()).isGreaterThanOrEqualTo(300_000);
        for (int i = 0; i < 300_000; i++) {
            assertThat(buf.getByte(i)).isEqualTo((byte) i);
        }
        assertThat(allocator.slabOf(buf.memoryAddress(), buf.capacity())).isNotNull();
        assertThat(allocator.bytesInUse()).isEqualTo(Integer.highestOneBit(buf.capacity() - 1) * 2L);
        buf.release();
        assertThat(allocator.bytesInUse()).isZero();
    }

    @Test
    void smallHugeAndHeapBuffersComeFromTheFallback() {
        ByteBuf small = allocator.directBuffer(RegisteredBufferAllocator.MIN_CAPACITY - 1);
        ByteBuf huge = allocator.directBuffer(RegisteredBufferAllocator.MAX_CAPACITY + 1);
        ByteBuf heap = allocator.heapBuffer(RegisteredBufferAllocator.MIN_CAPACITY);
        assertThat(allocator.slabOf(small.memoryAddress(), 1)).isNull();
        assertThat(allocator.slabOf(huge.memoryAddress(), 1)).isNull();
        assertThat(heap.hasArray()).isTrue();
        assertThat(allocator.bytesInUse()).isZero();
        small.release();
        huge.release();
        heap.release();
    }

    @Test
    void pastItsBudgetOrAfterItsCloseTheFallbackServes() {
        int perSlab = RegisteredBufferAllocator.SLAB_BYTES / RegisteredBufferAllocator.MAX_CAPACITY;
        ByteBuf[] held = new ByteBuf[RegisteredBufferAllocator.MAX_SLABS * perSlab];
        for (int i = 0; i < held.length; i++) {
            held[i] = allocator.directBuffer(RegisteredBufferAllocator.MAX_CAPACITY);
        }
        ByteBuf beyond = allocator.directBuffer(RegisteredBufferAllocator.MAX_CAPACITY);
        assertThat(allocator.slabOf(beyond.memoryAddress(), 1)).isNull();
        beyond.release();
        held[0].release();
        ByteBuf again = allocator.directBuffer(RegisteredBufferAllocator.MAX_CAPACITY);
        assertThat(allocator.slabOf(again.memoryAddress(), 1)).as("the block released is used again").isNotNull();
        allocator.close();
        assertThat(allocator.slabOf(again.memoryAddress(), 1)).as("a closed runtime's slabs send nothing").isNull();
        ByteBuf afterClose = allocator.directBuffer(RegisteredBufferAllocator.MIN_CAPACITY);
        assertThat(allocator.bytesInUse()).isEqualTo((long) RegisteredBufferAllocator.MAX_SLABS
                * RegisteredBufferAllocator.SLAB_BYTES);
        afterClose.release();
        again.release();
        for (int i = 1; i < held.length; i++) {
            held[i].release();
        }
        assertThat(allocator.bytesInUse()).isZero();
    }

}
