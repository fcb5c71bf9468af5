package dev.rdmafutures.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.rdmafutures.RdmaRuntime;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

/** Without {@code Unsafe} (Netty's default on Java 25 and later) the loop's allocator serves from its fallback only. */
class RegisteredBufferAllocatorWithoutUnsafeTest {
    @Test
    void withoutUnsafeEveryBufferComesFromTheFallback() {
        assumeFalse(PlatformDependent.hasUnsafe(), "Netty has Unsafe here: RegisteredBufferAllocatorTest covers it");
        try (RdmaRuntime runtime = RdmaRuntime.builder().pollerThreads(0).build()) {
            RegisteredBufferAllocator allocator = new RegisteredBufferAllocator(runtime, ByteBufAllocator.DEFAULT);
            ByteBuf buf = allocator.directBuffer(RegisteredBufferAllocator.MIN_CAPACITY);
            buf.writeLong(42);
            assertThat(buf.getLong(0)).isEqualTo(42);
            assertThat(allocator.bytesInUse()).isZero();
            buf.release();
            allocator.close();
        }
    }
}
