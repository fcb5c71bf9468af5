package dev.rdmafutures.jmh;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.RdmaPassiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Baseline: plain DiSNI endpoint code on the same verbs device (inside the RDMA VM, {@code -Dbench.address}): a
 * passive endpoint group, one stateful {@code SVCPostSend} per slot prepared once, the client's CQ busy-polled with
 * a stateful {@code SVCPollCq} — the fastest way DiSNI's API allows. READ latency one at a time, and throughput with
 * a window of reads reposted as they complete, as {@code ReadLatencyBenchmark} and {@code ThroughputBenchmark}.
 * DiSNI cannot negotiate read limits, so its reads beyond the default limit wait in the send queue.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
public class DisniReadBenchmark {

    /** DiSNI's endpoint, as it comes. */
    static final class Endpoint extends RdmaEndpoint {
        Endpoint(RdmaEndpointGroup<Endpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }
    }

    /** A DiSNI connection on the device, the server's buffer registered for remote reads. */
    @State(Scope.Thread)
    public static class Disni {
        @Param({"8", "4096", "65536"})
        public int size;
        @Param({"16"})
        public int window;
        RdmaPassiveEndpointGroup<Endpoint> group;
        RdmaServerEndpoint<Endpoint> listener;
        Endpoint client;
        Endpoint server;
        SVCPostSend[] reads;
        SVCPollCq poll;
        IbvWC[] completions;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            group = new RdmaPassiveEndpointGroup<>(1000, 2 * window, 1, 4 * window);
            // DiSNI refuses to set read limits (RdmaConnParam: "Operation currently not supported"): its connections
            // keep its defaults, which is what a DiSNI user gets. Its retry counts default to 0, so one packet
            // lost under emulation fails a READ: they get perftest's 7, as our provider has.
            group.getConnParam().setRetry_count((byte) 7);
            group.getConnParam().setRnr_retry_count((byte) 7);
            group.init((id, serverSide) -> new Endpoint(group, id, serverSide));
            InetAddress address = InetAddress.getByName(System.getProperty("bench.address", "127.0.0.1"));
            listener = group.createServerEndpoint().bind(new InetSocketAddress(address, 0), 4);
            CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return listener.accept();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            client = group.createEndpoint();
            client.connect(listener.getSrcAddr(), 2000);
            server = accepted.get(20, TimeUnit.SECONDS);
            IbvMr remote = server.registerMemory(ByteBuffer.allocateDirect(size * window)).execute().free().getMr();
            IbvMr local = client.registerMemory(ByteBuffer.allocateDirect(size * window)).execute().free().getMr();
            reads = new SVCPostSend[window];
            for (int slot = 0; slot < window; slot++) {
                IbvSge sge = new IbvSge();
                sge.setAddr(local.getAddr() + (long) slot * size);
                sge.setLength(size);
                sge.setLkey(local.getLkey());
                IbvSendWR wr = new IbvSendWR();
                wr.setWr_id(slot);
                wr.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
                wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
                wr.setSg_list(new LinkedList<>(List.of(sge)));
                wr.getRdma().setRemote_addr(remote.getAddr() + (long) slot * size);
                wr.getRdma().setRkey(remote.getRkey());
                reads[slot] = client.postSend(List.of(wr));
            }
            completions = new IbvWC[window];
            for (int i = 0; i < window; i++) {
                completions[i] = new IbvWC();
            }
            poll = client.getCqProvider().getCQ().poll(completions, window);
        }

        /** Polls once; returns the completions found, failing on an error status. */
        int pollOnce() throws IOException {
            int n = poll.execute().getPolls();
            for (int i = 0; i < n; i++) {
                if (completions[i].getStatus() != 0) {
                    throw new IOException("DiSNI READ failed with status " + completions[i].getStatus());
                }
            }
            return n;
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            server.close();
            listener.close();
            group.close();
        }
    }

    /** One READ of {@code size} bytes, the CQ busy-polled. */
    @Benchmark
    public int readLatency(Disni d) throws IOException {
        d.reads[0].execute();
        int n;
        while ((n = d.pollOnce()) == 0) {
            Thread.onSpinWait();
        }
        return n;
    }

    /** {@code BATCH} READs of {@code size} bytes, {@code window} in flight, each completion reposting its slot. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @OperationsPerInvocation(ThroughputBenchmark.BATCH)
    public int readThroughput(Disni d) throws IOException {
        int issued = 0;
        int done = 0;
        for (int slot = 0; slot < d.window; slot++, issued++) {
            d.reads[slot].execute();
        }
        while (done < ThroughputBenchmark.BATCH) {
            int n = d.pollOnce();
            for (int i = 0; i < n; i++, done++) {
                if (issued < ThroughputBenchmark.BATCH) {
                    d.reads[(int) d.completions[i].getWr_id()].execute();
                    issued++;
                }
            }
        }
        return done;
    }
}
