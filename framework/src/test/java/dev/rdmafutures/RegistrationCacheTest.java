package dev.rdmafutures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RegistrationCacheTest {
    private RdmaRuntime runtime;

    @BeforeEach
    void start() {
        runtime = RdmaRuntime.builder().build();
    }

    @AfterEach
    void stop() {
        runtime.close();
    }

    @Test
    void theSameBufferAndAccessGetTheSameRegion() {
        RegistrationCache cache = RegistrationCache.builder(runtime).build();
        ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        MemoryRegion first = cache.register(buffer, Access.LOCAL_WRITE);
        assertThat(cache.register(buffer, Access.LOCAL_WRITE)).isSameAs(first);
        assertThat(cache.register(buffer, Access.LOCAL_WRITE, Access.REMOTE_READ)).isNotSameAs(first);
        assertThat(cache.register(buffer.duplicate().limit(100), Access.LOCAL_WRITE)).isNotSameAs(first);
        assertThat(cache.size()).isEqualTo(3);
        cache.invalidate(buffer);
        assertThat(first.isValid()).isFalse();
        assertThat(cache.register(buffer, Access.LOCAL_WRITE)).isNotSameAs(first);
    }

    @Test
    void evictionDeregistersOnlyIdleRegions() {
        RegistrationCache cache = RegistrationCache.builder(runtime).maximumRegions(8).build();
        List<MemoryRegion> regions = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            regions.add(cache.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE));
        }
        assertThat(cache.size()).isLessThanOrEqualTo(8);
        assertThat(regions.stream().filter(MemoryRegion::isValid).count()).isLessThanOrEqualTo(8);
    }

    @Test
    void aRegionInUseIsDeregisteredOnlyWhenItsOperationCompletes() throws Exception {
        RdmaListener listener = runtime.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        CompletableFuture<RdmaConnection> c = runtime.connector().connect(listener.localAddress()).start();
        RdmaConnection server = listener.next().get(10, TimeUnit.SECONDS).accept().get(10, TimeUnit.SECONDS);
        RdmaConnection client = c.get(10, TimeUnit.SECONDS);

        RegistrationCache cache = RegistrationCache.builder(runtime).build();
        ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        MemoryRegion rx = cache.register(buffer, Access.LOCAL_WRITE);
        CompletableFuture<Completion> receive = server.receive(rx.slice(0, 64));
        cache.invalidate(buffer);
        assertThat(rx.isValid()).as("a posted receive keeps it registered").isTrue();

        MemoryRegion data = runtime.register(ByteBuffer.allocateDirect(8), Access.LOCAL_WRITE);
        client.send(data.slice(0, 8), OperationFlags.NONE).get(10, TimeUnit.SECONDS);
        assertThat(receive.get(10, TimeUnit.SECONDS).bytes()).isEqualTo(8);
        assertThat(rx.isValid()).as("deregistered once the receive completed").isFalse();
    }

    @Test
    void theBuilderValidatesItsBounds() {
        assertThatThrownBy(() -> RegistrationCache.builder(runtime).maximumRegions(0))
                .isInstanceOf(RdmaException.class);
        assertThatThrownBy(() -> RegistrationCache.builder(runtime).maximumBytes(-1))
                .isInstanceOf(RdmaException.class);
        RegistrationCache byBytes = RegistrationCache.builder(runtime).maximumBytes(1000).build();
        for (int i = 0; i < 20; i++) {
            byBytes.register(ByteBuffer.allocateDirect(100), Access.LOCAL_WRITE);
        }
        assertThat(byBytes.size()).isLessThanOrEqualTo(10);
    }
}
