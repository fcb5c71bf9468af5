package dev.rdmafutures.samples.kv;

import dev.rdmafutures.Access;
import dev.rdmafutures.CompletionCallback;
import dev.rdmafutures.LocalBuffer;
import dev.rdmafutures.MemoryRegion;
import dev.rdmafutures.OperationFlags;
import dev.rdmafutures.RdmaConnection;
import dev.rdmafutures.RdmaException;
import dev.rdmafutures.RdmaRuntime;
import dev.rdmafutures.RegionSlice;
import dev.rdmafutures.ScatterGatherList;
import dev.rdmafutures.Status;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One client connection of the load generator: a window of operations kept outstanding on the allocation-free
 * callback path, each a small state machine driven by its completions. Its runtime is application-driven: every
 * post and completion happens on the one thread that polls it ({@link RdmaKvClient}).
 *
 * <ul>
 *   <li>GET: READ a neighbourhood of index slots and find the key's ({@link IndexSlot#find}); once the client knows
 *       the key's slot ({@link SlotCache}), READ that one slot. Inline values are checked in the slot itself: one
 *       READ. Heap values take one scatter-gather READ of the record into a header
 *       buffer and a payload buffer, checked against the slot. A torn slot is read again, a record that no longer
 *       matches its slot sends the GET back to the index.</li>
 *   <li>PUT: one Send gathered from a request header and the value, into the server's shared receive queue; done
 *       when the Send completed and the acknowledgement arrived in one of the receives this connection keeps
 *       posted (in whichever order those two come).</li>
 * </ul>
 *
 * Every value read is checked against its checksums, its content and the {@link Expectations}, and only after its
 * READ completed with every byte asked for. Each operation started ends exactly once: checked or acknowledged, failed
 * with the typed {@link Status} the transport gave (the server went away, the link was cut), or as a problem; the
 * first failure stops the run ({@link RunControl}) and every slot ends when its operation does. A post the connection
 * refuses (typically because it ended meanwhile) ends its operation with the refusal's status in the same way.
 *
 * <p>The buffers every post names are made once, per slot: fixed spans as {@link RegionSlice}s, spans whose length
 * varies in the slot's reused {@link ScatterGatherList}, so a running connection allocates nothing per operation.
 */
final class RdmaKvConnection implements CompletionCallback {
    private static final int INDEX = 0;
    private static final int VALUE = 1;
    private static final int SEND = 2;
    private static final int ACK = 3;
    /** READs a GET repeats on torn data before the run fails. */
    static final int MAX_RETRIES = 10_000;

    private final RdmaConnection connection;
    private final int number;
    private final Bootstrap server;
    private final KvLayout layout;
    private final int valueSize;
    private final RunControl control;
    private final Expectations expectations;
    private final SlotCache slotCache;
    private final LoadStats stats = new LoadStats();
    private final MemoryRegion meta;
    private final MemoryRegion data;
    private final ByteBuffer metaView;
    private final ByteBuffer dataView;
    private final int ackBase;
    /** The acknowledgement receives' buffers, one per ring entry. */
    private final RegionSlice[] ackSlices;
    private final Op[] ops;
    private int stopped;
    private final CRC32C crc = new CRC32C();
    /** Why no acknowledgement will arrive any more (a receive failed or could not be posted), or null. */
    private Status acknowledgementsLost;

    RdmaKvConnection(RdmaRuntime runtime, RdmaConnection connection, int number, Bootstrap server, LoadSpec spec,
                     RunControl control, Expectations expectations, SlotCache slotCache) {
        this.connection = connection;
        this.number = number;
        this.server = server;
        this.valueSize = spec.valueSize();
        this.control = control;
        this.expectations = expectations;
        this.slotCache = slotCache;
        this.layout = new KvLayout(server.capacity(), server.maxValue());
        int window = spec.window();
        int neighbourhood = KvLayout.NEIGHBOURHOOD * layout.slotBytes();
        int metaStride = neighbourhood + ValueRecord.HEADER_BYTES + Frames.REQUEST_BYTES;
        this.ackBase = window * metaStride;
        // meta: per slot an index neighbourhood, a record header and a request header; then the ack receives.
        // data: per slot a payload buffer for heap values (as large as the server's largest) and a PUT's value.
        this.meta = runtime.register(ByteBuffer.allocateDirect(ackBase + window * Frames.RESPONSE_BYTES),
                Access.LOCAL_WRITE);
        int payload = layout.inline() ? 0 : server.maxValue();
        int stride = payload + valueSize;
        this.data = runtime.register(ByteBuffer.allocateDirect(window * stride), Access.LOCAL_WRITE);
        this.metaView = meta.buffer();
        this.dataView = data.buffer();
        this.ackSlices = new RegionSlice[window];
        for (int r = 0; r < window; r++) {
            ackSlices[r] = meta.slice(ackBase + r * Frames.RESPONSE_BYTES, Frames.RESPONSE_BYTES);
        }
        this.ops = new Op[window];
        for (int i = 0; i < window; i++) {
            ops[i] = new Op(i, new Workload(spec, number, i), i * metaStride, neighbourhood, i * stride, payload);
        }
    }

    LoadStats stats() {
        return stats;
    }

    /** Posts the acknowledgement receives and starts every slot of the window. */
    void start() {
        for (int r = 0; r < ops.length; r++) {
            Status status = postAckReceive(r);
            if (status != Status.SUCCESS) {
                loseAcknowledgements(status, "cannot post the acknowledgement receives: refused with " + status);
                break;
            }
        }
        for (Op op : ops) {
            op.next();
        }
    }

    /** Whether every slot of the window has stopped. */
    boolean isIdle() {
        return stopped == ops.length;
    }

    /** Releases the buffers; call after the connection ended. */
    void close() {
        meta.close();
        data.close();
    }

    @Override
    public void completed(long context, int bytes) {
        int n = (int) (context >>> 2);
        switch ((int) (context & 3)) {
            case INDEX -> ops[n].indexRead(bytes);
            case VALUE -> ops[n].valueRead(bytes);
            case SEND -> ops[n].sent();
            default -> ackReceived(n, bytes);
        }
    }

    @Override
    public void failed(long context, RdmaException error) {
        int n = (int) (context >>> 2);
        int phase = (int) (context & 3);
        if (phase != ACK) {
            ops[n].failed(error.status(), (phase == INDEX ? "index READ" : phase == VALUE ? "record READ"
                    : "PUT Send") + " failed: " + error);
        } else if (!isIdle()) { // the receives are cancelled when the connection ends after the run
            loseAcknowledgements(error.status(), "an acknowledgement receive failed: " + error);
        }
    }

    /**
     * No acknowledgement will arrive any more: the run fails, and PUTs waiting for one end with {@code status}; those
     * whose Send has not completed yet end so when it does ({@link Op#sent}).
     */
    private void loseAcknowledgements(Status status, String why) {
        control.failed(status, false, "connection " + number + ": " + why);
        acknowledgementsLost = status;
        for (Op op : ops) {
            if (op.pending == 1 && !op.sending) {
                op.failed(status, "PUT of key " + op.key + " lost its acknowledgement: " + why);
            }
        }
    }

    /** Posts acknowledgement receive {@code ring}: {@link Status#SUCCESS}, or the status it was refused with. */
    private Status postAckReceive(int ring) {
        return connection.receive(ackSlices[ring], this, (long) ring << 2 | ACK);
    }

    private void ackReceived(int ring, int bytes) {
        int at = ackBase + ring * Frames.RESPONSE_BYTES;
        int op = Frames.op(metaView, at);
        int requestId = Frames.requestId(metaView, at);
        int status = Frames.responseStatus(metaView, at);
        long version = Frames.responseVersion(metaView, at);
        // The acknowledgement is read: the PUT it answers counts as acknowledged even if the buffer cannot take the
        // next one because the connection is ending (the refusal then fails the PUTs still waiting).
        try {
            acknowledge(bytes, op, requestId, status, version);
        } finally {
            Status posted = postAckReceive(ring); // refused typically because the connection ended meanwhile
            if (posted != Status.SUCCESS) {
                loseAcknowledgements(posted, "cannot post an acknowledgement receive again: refused with " + posted);
            }
        }
    }

    private void acknowledge(int bytes, int op, int requestId, int status, long version) {
        if (bytes != Frames.RESPONSE_BYTES || op != Frames.ACK || requestId < 0 || requestId >= ops.length
                || ops[requestId].pending == 0) {
            fail("an acknowledgement nobody waits for: " + bytes + " B, op " + op + ", request " + requestId);
            return;
        }
        Op put = ops[requestId];
        if (status != Frames.OK) {
            put.problem("PUT of key " + put.key + " answered " + Frames.status(status));
            return;
        }
        String problem = expectations.acknowledged(put.key, version, put.seed);
        if (problem != null) {
            put.problem(problem);
            return;
        }
        stats.answer(put.key, version, put.seed);
        put.step();
    }

    /** A problem that belongs to no one operation; the run fails. */
    private void fail(String why) {
        control.fail("connection " + number + ": " + why);
    }

    /** One slot of the window: its buffers and the operation it runs. */
    private final class Op {
        final int number;
        final Workload workload;
        /** The slot's spans of varying length: a record READ's two, a PUT's two, a short index READ's one. */
        final ScatterGatherList segments = new ScatterGatherList(2);
        /** The slot's index buffer, a whole neighbourhood: what a search's READ fills unless near the index's end. */
        final RegionSlice neighbourhoodSlice;
        /** The start of the index buffer, one index slot long: what the READ of a known slot fills. */
        final RegionSlice oneSlotSlice;
        final int neighbourhoodAt;
        final int headerAt;
        final int requestAt;
        final int payloadAt;
        final int valueAt;
        boolean retired;
        long begin;
        long key;
        long seed;
        long minVersion;
        int retries;
        int reads;
        int probe;
        int probed;
        int count;
        /** The index READ under way is of the slot the cache knows for the key. */
        boolean known;
        long version;
        int length;
        int recordCrc;
        int pending;
        boolean sending;

        Op(int number, Workload workload, int metaAt, int neighbourhood, int dataAt, int payload) {
            this.number = number;
            this.workload = workload;
            this.neighbourhoodAt = metaAt;
            this.neighbourhoodSlice = meta.slice(metaAt, neighbourhood);
            this.oneSlotSlice = meta.slice(metaAt, layout.slotBytes());
            this.headerAt = metaAt + neighbourhood;
            this.requestAt = headerAt + ValueRecord.HEADER_BYTES;
            this.payloadAt = dataAt;
            this.valueAt = dataAt + payload;
        }

        void next() {
            begin = System.nanoTime();
            if (!control.mayStart(begin) || !workload.takeOne()) {
                retire();
                return;
            }
            control.started();
            retries = 0;
            reads = 0;
            boolean get = workload.nextIsGet();
            key = workload.nextKey();
            if (get) {
                minVersion = expectations.acknowledgedVersion(key);
                lookUp();
            } else {
                put(workload.nextSeed());
            }
        }

        /** Reads the key's slot where the cache knows it, else the neighbourhoods from the key's home on. */
        private void lookUp() {
            int slot = slotCache.slotOf(key, layout.capacity());
            known = slot >= 0;
            probe = known ? slot : layout.home(key);
            probed = 0;
            readIndex();
        }

        private void readIndex() {
            count = known ? 1 : Math.min(KvLayout.NEIGHBOURHOOD, layout.capacity() - probe);
            reads++;
            LocalBuffer into = count == KvLayout.NEIGHBOURHOOD ? neighbourhoodSlice : count == 1 ? oneSlotSlice
                    : segments.clear().add(meta, neighbourhoodAt, count * layout.slotBytes());
            posted(connection.read(into, server.index(), (long) probe * layout.slotBytes(), OperationFlags.NONE,
                    RdmaKvConnection.this, context(INDEX)));
        }

        void indexRead(int bytes) {
            if (bytes != count * layout.slotBytes()) { // the buffer's other bytes are an earlier READ's
                problem("an index READ of " + count * layout.slotBytes() + " B completed with " + bytes + " B");
                return;
            }
            int at = IndexSlot.find(metaView, neighbourhoodAt, count, layout, key, crc);
            if (known && (at == IndexSlot.MISSING || at == IndexSlot.FURTHER)) {
                slotCache.forget(key); // cannot happen while the index never moves a key; search from home
                lookUp();
                return;
            }
            switch (at) {
                case IndexSlot.REREAD -> {
                    if (retry()) {
                        readIndex();
                    }
                }
                case IndexSlot.MISSING -> problem("GET of key " + key + " found no slot: the key is missing");
                case IndexSlot.FURTHER -> {
                    probed += count;
                    probe = (probe + count) & (layout.capacity() - 1);
                    if (probed < layout.capacity()) {
                        readIndex();
                    } else {
                        problem("GET of key " + key + " searched the whole index");
                    }
                }
                default -> {
                    if (!known) {
                        slotCache.remember(key, probe + (at - neighbourhoodAt) / layout.slotBytes());
                    }
                    version = IndexSlot.version(metaView, at);
                    length = IndexSlot.length(metaView, at);
                    if (layout.inline()) {
                        check(metaView, at + IndexSlot.HEADER_BYTES); // the slot's checksum covered the value
                    } else {
                        readRecord(at);
                    }
                }
            }
        }

        private void readRecord(int slotAt) {
            recordCrc = IndexSlot.recordCrc(metaView, slotAt);
            if (length < 0 || length > server.maxValue()) {
                problem("key " + key + "'s slot has a valid checksum but a length of " + length);
                return;
            }
            segments.clear().add(meta, headerAt, ValueRecord.HEADER_BYTES).add(data, payloadAt, length);
            reads++;
            posted(connection.read(segments, server.heap(), IndexSlot.offset(metaView, slotAt), OperationFlags.NONE,
                    RdmaKvConnection.this, context(VALUE)));
        }

        void valueRead(int bytes) {
            if (bytes != ValueRecord.HEADER_BYTES + length) {
                problem("a record READ of " + (ValueRecord.HEADER_BYTES + length) + " B completed with " + bytes
                        + " B");
                return;
            }
            if (!ValueRecord.matches(metaView, headerAt, dataView, payloadAt, key, version, length, recordCrc,
                    crc)) {
                if (retry()) { // overwritten or torn under the READ: the slot has moved on
                    lookUp();
                }
                return;
            }
            check(dataView, payloadAt);
        }

        /** Checks a value that passed its checksums against its content and the expectations; the GET ends. */
        private void check(ByteBuffer value, int at) {
            long found = ValueContent.seedOf(value, at, length, key);
            String problem = found == ValueContent.CORRUPT
                    ? "GET of key " + key + " version " + version + " passed its checksums but holds a wrong value"
                    : expectations.checkGet(key, version, found, minVersion);
            if (problem != null) {
                problem(problem);
                return;
            }
            stats.answer(key, version, found);
            stats.record(true, reads, begin, System.nanoTime(), control);
            next();
        }

        private boolean retry() {
            stats.tornReads++;
            if (++retries <= MAX_RETRIES) {
                return true;
            }
            problem("GET of key " + key + " read nothing consistent in " + MAX_RETRIES + " attempts");
            return false;
        }

        private void put(long valueSeed) {
            seed = valueSeed;
            ValueContent.fill(dataView, valueAt, valueSize, key, seed);
            crc.reset();
            KvLayout.update(crc, dataView, valueAt, valueSize);
            Frames.request(metaView, requestAt, Frames.PUT, number, key, valueSize, (int) crc.getValue());
            segments.clear().add(meta, requestAt, Frames.REQUEST_BYTES).add(data, valueAt, valueSize);
            pending = 2;
            sending = true;
            posted(connection.send(segments, OperationFlags.NONE, RdmaKvConnection.this, context(SEND)));
        }

        /**
         * What a post returned: a refusal (typically the connection ended meanwhile) ends the operation with its
         * status, as a failure the transport reports would; nothing was posted, so no callback comes for it.
         */
        private void posted(Status status) {
            if (status != Status.SUCCESS) {
                failed(status, "cannot post: refused with " + status);
            }
        }

        /** The PUT's Send completed. */
        void sent() {
            sending = false;
            if (acknowledgementsLost != null && pending == 2) { // its acknowledgement has not come and will not
                failed(acknowledgementsLost, "PUT of key " + key + " sent, but acknowledgements are lost");
            } else {
                step();
            }
        }

        /** The PUT's Send completed or its acknowledgement arrived; it is done after both. */
        void step() {
            if (--pending == 0) {
                stats.record(false, 1, begin, System.nanoTime(), control);
                next();
            }
        }

        /** The operation ended with a typed transport failure; the slot stops. */
        void failed(Status status, String why) {
            if (!retired) {
                control.failed(status, true, "connection " + RdmaKvConnection.this.number + ": " + why);
                retire();
            }
        }

        /** The operation ended with a problem (a wrong or torn value, a wrong answer); the slot stops. */
        void problem(String why) {
            if (!retired) {
                fail(why);
                retire();
            }
        }

        /** The slot stops: no operation runs in it from now on. */
        void retire() {
            if (!retired) {
                retired = true;
                pending = 0;
                stopped++;
            }
        }

        private long context(int phase) {
            return (long) number << 2 | phase;
        }
    }
}
