package dev.rdmafutures.testcontainers.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.RdmaActiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import dev.rdmafutures.testcontainers.InRdmaVm;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * DiSNI's own public API, unchanged, on our libdisni: an {@link RdmaActiveEndpointGroup} server and client on rxe0,
 * the client RDMA-reading the server's buffer. This is what a DiSNI user gets from Maven Central plus our jar.
 */
@Tag("verbs-conformance")
@InRdmaVm(devices = "rxe")
class DisniDropInVmTest {
    private static final int SIZE = 4096;

    /** A DiSNI endpoint with one registered buffer that hands its completions to the test. */
    static final class ReadEndpoint extends RdmaActiveEndpoint {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        final BlockingQueue<IbvWC> completions = new ArrayBlockingQueue<>(16);
        IbvMr mr;

        ReadEndpoint(RdmaActiveEndpointGroup<ReadEndpoint> group, RdmaCmId id, boolean server) throws IOException {
            super(group, id, server);
        }

        @Override
        protected synchronized void init() throws IOException {
            super.init();
            mr = registerMemory(buffer).execute().free().getMr();
        }

        @Override
        public void dispatchCqEvent(IbvWC wc) {
            completions.add(wc.clone());
        }
    }

    @Test
    void anRdmaActiveEndpointGroupClientReadsTheServersBufferOnRxe0() throws Exception {
        InetSocketAddress address = new InetSocketAddress(new VerbsFixture("rxe0").deviceAddress(), 19870);
        RdmaActiveEndpointGroup<ReadEndpoint> group = new RdmaActiveEndpointGroup<>(1000, false, 16, 2, 64);
        group.init((id, server) -> new ReadEndpoint(group, id, server));
        try {
            RdmaServerEndpoint<ReadEndpoint> server = group.createServerEndpoint().bind(address, 10);
            CompletableFuture<ReadEndpoint> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.accept();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            ReadEndpoint client = group.createEndpoint();
            client.connect(address, 2000);
            ReadEndpoint serverSide = accepted.get(20, TimeUnit.SECONDS);
            for (int i = 0; i < SIZE; i++) {
                serverSide.buffer.put(i, (byte) (i * 7 + 3));
            }

            IbvSge sge = new IbvSge();
            sge.setAddr(client.mr.getAddr());
            sge.setLength(SIZE);
            sge.setLkey(client.mr.getLkey());
            LinkedList<IbvSge> sges = new LinkedList<>(List.of(sge));
            IbvSendWR read = new IbvSendWR();
            read.setWr_id(42);
            read.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
            read.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
            read.setSg_list(sges);
            read.getRdma().setRemote_addr(serverSide.mr.getAddr());
            read.getRdma().setRkey(serverSide.mr.getRkey());
            client.postSend(List.of(read)).execute().free();

            IbvWC done = client.completions.poll(20, TimeUnit.SECONDS);
            assertThat(done).as("read completion").isNotNull();
            assertThat(done.getStatus()).isZero();
            assertThat(done.getWr_id()).isEqualTo(42);
            assertThat(client.buffer).isEqualTo(serverSide.buffer);
            client.close();
            serverSide.close();
            server.close();
        } finally {
            group.close();
        }
    }
}
