package dev.rdmafutures.samples.kv;

import dev.rdmafutures.IdleStrategy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The load generator against {@link TcpKvServer}: the same connections, window, operations ({@link Workload}) and
 * checks as over RDMA, on one selector thread (the caller's), which polls without blocking as the RDMA client's load
 * thread does. Each connection pipelines up to its window of requests; the server answers in order, so answers are
 * matched first in, first out.
 */
final class TcpKvClient {
    private final LoadSpec spec;
    private final RunControl control;
    private final Expectations expectations;
    private final CRC32C crc = new CRC32C();
    private int active;

    private TcpKvClient(LoadSpec spec, RunControl control, Expectations expectations) {
        this.spec = spec;
        this.control = control;
        this.expectations = expectations;
    }

    /**
     * Runs one load on the calling thread, which polls the selector with {@code selectNow} and waits as {@code idle}
     * (BUSY_SPIN or YIELD) says after an empty poll.
     */
    static RunResult run(InetSocketAddress server, LoadSpec spec, Expectations expectations, IdleStrategy idle)
            throws IOException {
        List<SocketChannel> channels = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < spec.connections(); i++) {
                SocketChannel channel = SocketChannel.open(server);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true).configureBlocking(false);
                channels.add(channel);
            }
            TcpKvClient client = new TcpKvClient(spec, new RunControl(spec), expectations);
            List<Stream> streams = new ArrayList<>();
            for (int i = 0; i < channels.size(); i++) {
                Stream stream = client.new Stream(channels.get(i), i);
                streams.add(stream);
                channels.get(i).register(selector, SelectionKey.OP_READ, stream);
            }
            for (Stream stream : streams) {
                stream.start();
                stream.flush(stream.channel.keyFor(selector));
            }
            client.loop(selector, idle);
            return RunResult.of("TCP", client.control, streams.stream().map(s -> s.stats).toList());
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
    }

    /** Polls the selector until every slot has stopped or the drain deadline passed; {@code idle} after empty polls. */
    private void loop(Selector selector, IdleStrategy idle) throws IOException {
        long deadline = control.drainDeadline();
        Idler idler = new Idler(idle, null);
        Consumer<SelectionKey> handler = TcpKvClient::handle;
        while (active > 0) {
            if (System.nanoTime() - deadline > 0) {
                control.fail(active + " TCP operations still outstanding at the deadline");
                return;
            }
            idler.idle(selector.selectNow(handler));
        }
    }

    private static void handle(SelectionKey key) {
        Stream stream = (Stream) key.attachment();
        try {
            if (key.isReadable()) {
                stream.read(key);
            }
            if (key.isValid()) {
                stream.flush(key);
            }
        } catch (IOException e) {
            stream.broken("connection " + stream.number + ": " + e);
            key.cancel();
        }
    }

    /** One connection: its window slots, the order their requests went out, and its buffers. */
    private final class Stream {
        final SocketChannel channel;
        final int number;
        final LoadStats stats = new LoadStats();
        final Workload[] workloads;
        final boolean[] get;
        final long[] key;
        final long[] seed;
        final long[] begin;
        final long[] minVersion;
        final int[] inFlight; // slot numbers, oldest first
        int head;
        int size;
        final ByteBuffer in;
        final ByteBuffer out;

        Stream(SocketChannel channel, int number) {
            this.channel = channel;
            this.number = number;
            int window = spec.window();
            workloads = new Workload[window];
            for (int i = 0; i < window; i++) {
                workloads[i] = new Workload(spec, number, i);
            }
            get = new boolean[window];
            key = new long[window];
            seed = new long[window];
            begin = new long[window];
            minVersion = new long[window];
            inFlight = new int[window];
            in = ByteBuffer.allocateDirect(64 * 1024 + Frames.RESPONSE_BYTES
                    + Math.max(IndexSlot.HEADER_BYTES, ValueRecord.HEADER_BYTES) + spec.valueSize());
            out = ByteBuffer.allocateDirect(window * (Frames.REQUEST_BYTES + spec.valueSize()));
        }

        void start() {
            active += workloads.length;
            for (int slot = 0; slot < workloads.length; slot++) {
                next(slot);
            }
        }

        /** Starts the slot's next operation, or retires the slot. */
        private void next(int slot) {
            long now = System.nanoTime();
            Workload workload = workloads[slot];
            if (!control.mayStart(now) || !workload.takeOne()) {
                active--;
                return;
            }
            control.started();
            begin[slot] = now;
            get[slot] = workload.nextIsGet();
            key[slot] = workload.nextKey();
            int at = out.position();
            if (get[slot]) {
                minVersion[slot] = expectations.acknowledgedVersion(key[slot]);
                Frames.request(out, at, Frames.GET, slot, key[slot], 0, 0);
                out.position(at + Frames.REQUEST_BYTES);
            } else {
                seed[slot] = workload.nextSeed();
                int valueAt = at + Frames.REQUEST_BYTES;
                ValueContent.fill(out, valueAt, spec.valueSize(), key[slot], seed[slot]);
                crc.reset();
                KvLayout.update(crc, out, valueAt, spec.valueSize());
                Frames.request(out, at, Frames.PUT, slot, key[slot], spec.valueSize(), (int) crc.getValue());
                out.position(valueAt + spec.valueSize());
            }
            inFlight[(head + size++) % inFlight.length] = slot;
        }

        void read(SelectionKey selectionKey) throws IOException {
            if (channel.read(in) < 0) {
                throw new IOException("the server closed the connection");
            }
            in.flip();
            while (in.remaining() >= Frames.RESPONSE_BYTES && size > 0) {
                int at = in.position();
                int length = Frames.responseLength(in, at);
                if (length < 0 || Frames.RESPONSE_BYTES + length > in.capacity()) {
                    throw new IOException("an answer of " + length + " bytes");
                }
                if (in.remaining() < Frames.RESPONSE_BYTES + length) {
                    break;
                }
                int slot = inFlight[head];
                head = (head + 1) % inFlight.length;
                size--;
                String problem = get[slot] ? value(slot, at, length) : acknowledged(slot, at);
                in.position(at + Frames.RESPONSE_BYTES + length);
                if (problem == null) {
                    stats.record(get[slot], 1, begin[slot], System.nanoTime(), control);
                    next(slot);
                } else {
                    control.fail("connection " + number + ": " + problem); // no slot starts anything from now
                    active--;
                }
            }
            in.compact();
        }

        /** Checks a GET's answer as a GET over RDMA checks what it read: checksums, content, expectations. */
        private String value(int slot, int at, int length) {
            int op = Frames.op(in, at);
            int status = Frames.responseStatus(in, at);
            int answer = at + Frames.RESPONSE_BYTES;
            if (op != Frames.SLOT && op != Frames.VALUE || Frames.requestId(in, at) != slot || status != Frames.OK) {
                return "GET of key " + key[slot] + " answered op " + op + " for request " + Frames.requestId(in, at)
                        + ", " + Frames.status(status);
            }
            int valueAt;
            int valueLength;
            long version;
            if (op == Frames.SLOT) {
                valueAt = answer + IndexSlot.HEADER_BYTES;
                valueLength = length - IndexSlot.HEADER_BYTES;
                version = IndexSlot.version(in, answer);
                if (valueLength < 0 || IndexSlot.key(in, answer) != key[slot] || IndexSlot.length(in, answer)
                        != valueLength || !IndexSlot.valid(in, answer, valueLength, crc)) {
                    return "GET of key " + key[slot] + " returned a slot that fails its checksum";
                }
            } else {
                valueAt = answer + ValueRecord.HEADER_BYTES;
                valueLength = length - ValueRecord.HEADER_BYTES;
                version = ValueRecord.version(in, answer);
                if (valueLength < 0 || !ValueRecord.matches(in, answer, in, valueAt, key[slot], version, valueLength,
                        ValueRecord.crc(in, answer), crc)) {
                    return "GET of key " + key[slot] + " returned a record that fails its checksum";
                }
            }
            long found = ValueContent.seedOf(in, valueAt, valueLength, key[slot]);
            if (found == ValueContent.CORRUPT) {
                return "GET of key " + key[slot] + " version " + version + " passed its checksum but holds a "
                        + "wrong value";
            }
            stats.answer(key[slot], version, found);
            return expectations.checkGet(key[slot], version, found, minVersion[slot]);
        }

        private String acknowledged(int slot, int at) {
            int status = Frames.responseStatus(in, at);
            if (Frames.op(in, at) != Frames.ACK || Frames.requestId(in, at) != slot || status != Frames.OK) {
                return "PUT of key " + key[slot] + " answered op " + Frames.op(in, at) + " for request "
                        + Frames.requestId(in, at) + ", " + Frames.status(status);
            }
            long version = Frames.responseVersion(in, at);
            stats.answer(key[slot], version, seed[slot]);
            return expectations.acknowledged(key[slot], version, seed[slot]);
        }

        void flush(SelectionKey selectionKey) throws IOException {
            out.flip();
            channel.write(out);
            out.compact();
            selectionKey.interestOps(SelectionKey.OP_READ | (out.position() > 0 ? SelectionKey.OP_WRITE : 0));
        }

        /** The connection cannot go on: the run fails and its outstanding operations are written off. */
        void broken(String why) {
            control.fail(why);
            active -= size;
            size = 0;
        }
    }
}
