package dev.rdmafutures.soft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmafutures.Access;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.PeerFaultPolicy;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaListener;
import dev.rdmafutures.conformance.ConformanceSupport;
import dev.rdmafutures.conformance.ProviderFixture;
import dev.rdmafutures.soft.ddp.DdpHeader;
import dev.rdmafutures.soft.mpa.FpduFraming;
import dev.rdmafutures.soft.mpa.MpaMessage;
import dev.rdmafutures.soft.rdmap.Rdmap;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hostile peers against a soft endpoint: after a real MPA handshake, each input is a burst of FPDUs built from
 * valid templates of every opcode and then mutated (STags, offsets, lengths, MSNs, queues, opcodes, CRCs,
 * truncation, random bytes, floods of Read Requests beyond IRD). The endpoint must terminate bad connections
 * cleanly: no error escapes into the poller, no byte outside a writable region changes, memory stays bounded, and
 * the runtime keeps serving. {@code -Dfuzz.inputs=N} runs more inputs (default 1500); the seed is fixed.
 */
class SoftFuzzTest extends ConformanceSupport {
    private static final Logger LOG = LoggerFactory.getLogger(SoftFuzzTest.class);

    @Override
    protected ProviderFixture fixture() {
        return SoftFixture.INSTANCE;
    }

    @Test
    void hostileFramesNeverEscapeTheirConnection() throws Exception {
        int inputs = Integer.getInteger("fuzz.inputs", 1500);
        // Every input comes from this host's address: the default PeerFaultPolicy would refuse it after a few, and
        // the rest would test the refusal, not the frames (SoftPeerFaultPolicyTest tests the policy).
        server = closeLater(fixture().runtimeBuilder().threadNamePrefix("fuzz-server")
                .peerFaultPolicy(PeerFaultPolicy.disabled()).build());
        // The writable region is a slice in the middle of a larger buffer: the guards around it must never change.
        // The read-only region must never change either.
        GuardedMemory memory = new GuardedMemory(server);
        byte[] guardsBefore = memory.guardsBefore();
        byte[] readOnlyBefore = memory.readOnlyBefore();
        MemoryRegion writable = closeLater(memory.writable);
        MemoryRegion readOnly = closeLater(memory.readOnly);
        MemoryRegion rx = closeLater(server.register(ByteBuffer.allocateDirect(256), Access.LOCAL_WRITE));
        int[] tokens = {writable.token(), readOnly.token(), rx.token(), 0, 0x12345678};

        RdmaListener listener = listen();
        listener.onRequest(r -> r.withReadLimits(4, 4).accept().thenAccept(c -> {
            c.receive(rx.slice(0, 128));
            c.receive(rx.slice(128, 128));
        }));

        Random random = new Random(20261122L);
        long usedBefore = usedHeap();
        for (int i = 0; i < inputs; i++) {
            try (Socket peer = handshake(listener)) {
                OutputStream out = peer.getOutputStream();
                out.write(hostileBurst(random, tokens));
                out.flush();
            } catch (IOException expected) {
                // the endpoint may close first: that is a correct answer to a hostile peer
            }
        }
        // The runtime keeps serving, with data intact.
        RdmaConnection good = closeLater(await(client.connector().connect(listener.localAddress()).start()));
        MemoryRegion local = closeLater(client.register(ByteBuffer.allocateDirect(4096), Access.values()));
        await(good.read(local.slice(0, 4096), readOnly.remote(), 0, OperationFlags.NONE));
        assertThat(GuardedMemory.bytes(local.buffer())).isEqualTo(readOnlyBefore);

        assertThat(server.pollerErrorCount()).as("errors that escaped into the poller").isZero();
        assertThat(memory.guards()).as("bytes around the writable region").isEqualTo(guardsBefore);
        assertThat(memory.readOnlyBytes()).as("the read-only region").isEqualTo(readOnlyBefore);
        assertThat(usedHeap() - usedBefore).as("heap growth after %d inputs", inputs).isLessThan(64L << 20);
        LOG.info("fuzz: {} hostile inputs, no escape", inputs);
    }

    private static long usedHeap() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private Socket handshake(RdmaListener listener) throws IOException {
        Socket s = new Socket(listener.localAddress().getAddress(), listener.localAddress().getPort());
        s.setSoTimeout(5000);
        ByteBuffer request = MpaMessage.request(true, 4, 4, false, 0, new byte[0]).encode();
        s.getOutputStream().write(request.array(), 0, request.limit());
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] reply = new byte[MpaMessage.HEADER_LENGTH];
        in.readFully(reply);
        in.readFully(new byte[((reply[18] & 0xFF) << 8) | (reply[19] & 0xFF)]);
        return s;
    }

    /** One to eight FPDUs from templates, mutated; sometimes raw garbage or a Read Request flood. */
    private static byte[] hostileBurst(Random r, int[] tokens) {
        ByteBuffer out = ByteBuffer.allocate(256 * 1024);
        FpduFraming framing = new FpduFraming(true);
        int kind = r.nextInt(20);
        if (kind == 0) {
            byte[] junk = new byte[1 + r.nextInt(2000)];
            r.nextBytes(junk);
            return junk;
        }
        int count = kind == 1 ? 64 : 1 + r.nextInt(8); // kind 1: a flood of Read Requests far beyond IRD 4
        int sendMsn = 1;
        int readMsn = 1;
        for (int i = 0; i < count; i++) {
            ByteBuffer ulpdu = ByteBuffer.allocate(18 + 28 + 300);
            int op = kind == 1 ? Rdmap.READ_REQUEST : r.nextInt(9);
            int token = tokens[r.nextInt(tokens.length)];
            long offset = pick(r, new long[] {0, 1, 4095, 4096, 4097, -1, Long.MAX_VALUE, r.nextInt(8192)});
            int length = (int) pick(r, new long[] {0, 1, 16, 64, 200, 300, 4096, -1});
            int payload = Math.max(0, Math.min(length, 300));
            switch (op) {
                case Rdmap.RDMA_WRITE, Rdmap.READ_RESPONSE -> DdpHeader.putTagged(ulpdu, op, r.nextInt(4) != 0, token,
                        offset);
                case Rdmap.READ_REQUEST -> {
                    DdpHeader.putUntagged(ulpdu, op, true, 0, r.nextInt(10) == 0 ? 0 : Rdmap.QUEUE_READ_REQUEST,
                            r.nextInt(10) == 0 ? r.nextInt() : readMsn++, 0);
                    ulpdu.putInt(tokens[r.nextInt(tokens.length)]).putLong(offset).putInt(length).putInt(token)
                            .putLong(pick(r, new long[] {0, 4000, 4096, -5, r.nextInt(5000)}));
                    payload = 0;
                }
                case Rdmap.TERMINATE -> {
                    DdpHeader.putUntagged(ulpdu, op, true, 0, Rdmap.QUEUE_TERMINATE, 1, 0);
                    ulpdu.putInt(r.nextInt());
                    payload = 0;
                }
                default -> DdpHeader.putUntagged(ulpdu, op & 0x0F, r.nextInt(4) != 0, token,
                        r.nextInt(10) == 0 ? r.nextInt(4) : Rdmap.QUEUE_SEND,
                        r.nextInt(10) == 0 ? r.nextInt() : sendMsn++, (int) Math.min(offset, 1 << 20));
            }
            byte[] data = new byte[payload];
            r.nextBytes(data);
            ulpdu.put(data).flip();
            if (r.nextInt(8) == 0) { // semantic mutation before framing: any header byte
                int at = r.nextInt(Math.max(1, ulpdu.limit()));
                ulpdu.put(at, (byte) r.nextInt());
            }
            ByteBuffer fpdu = ByteBuffer.allocate(FpduFraming.fpduLength(ulpdu.remaining()));
            framing.frame(ulpdu, fpdu);
            byte[] framed = Arrays.copyOf(fpdu.array(), fpdu.position());
            int mutation = r.nextInt(12);
            if (mutation == 0) { // wire damage after framing: the CRC must catch it
                framed[2 + r.nextInt(framed.length - 2)] ^= (byte) (1 + r.nextInt(255));
            } else if (mutation == 1) { // a lying length field
                framed[0] = (byte) r.nextInt();
                framed[1] = (byte) r.nextInt();
            } else if (mutation == 2) { // truncated
                framed = Arrays.copyOf(framed, r.nextInt(framed.length));
            }
            if (out.remaining() < framed.length) {
                break;
            }
            out.put(framed);
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    private static long pick(Random r, long[] choices) {
        return choices[r.nextInt(choices.length)];
    }
}
