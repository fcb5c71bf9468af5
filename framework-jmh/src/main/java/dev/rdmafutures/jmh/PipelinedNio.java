package dev.rdmafutures.jmh;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * {@link MessageRate}'s socket baseline: request/response over TCP, run as a pipelining server (Netty, an RPC
 * framework) runs its sockets. Non-blocking channels with TCP_NODELAY; one thread per side drives all of its
 * connections and busy-polls them, reading each socket directly as soft's event loop does with up to 8 connections.
 * On each pass a side reads everything a socket has in one read call and writes everything it owes that socket in one
 * write call (one buffer per connection, not a write per message). The client keeps {@code window} requests in flight
 * on each connection, sending the next one when a response arrived; the server answers every request. Neither side
 * fills or parses its messages: their sizes are fixed, so each counts bytes.
 *
 * <p>The sizes are soft's on the wire (MPA without markers, CRC off but its 4 B field sent): an FPDU is the 2 B MPA
 * length, the DDP segment, pad to a multiple of 4 and the CRC field.
 * <ul>
 *   <li>READ: the request is a Read Request FPDU, 2 + 18 (untagged DDP header with the RDMAP control byte) + 28 (sink
 *   STag and offset, length, source STag and offset) + 4 = 52 B; the response is the {@code size} bytes read (soft's
 *   Read Response FPDU is 20 B longer: 28 B for 8 B, 4116 B for 4 KiB).</li>
 *   <li>WRITE: the request is the RDMA Write FPDU, 2 + 14 (tagged header) + size + pad + 4: 28 B for 8 B, 4116 B for
 *   4 KiB; the response an 8 B acknowledgement.</li>
 *   <li>SEND: the request is the Send FPDU, 2 + 18 + size + pad + 4: 32 B for 8 B, 4120 B for 4 KiB; the response an
 *   8 B acknowledgement.</li>
 * </ul>
 * An RDMA WRITE or SEND completes without a reply (soft's once TCP took its last byte), while every baseline request
 * waits for its acknowledgement: for them the baseline moves one message more per operation and its window is
 * bounded by round trips. It is disfavoured there, and the WRITE and SEND ratios flatter RDMA.
 *
 * <p>{@code -Dbench.framed=true} (READ only; both processes read it) makes the baseline do a READ's per-message work
 * as a hand-written pipelining server would: the client fills each request's fields (sink and source offsets, the
 * length, the source token) and copies each response's bytes into the slot it asked for; the server parses each
 * request, checks the token and that the range lies in its memory, and copies those bytes of its memory into the
 * response. Still one read and one write per socket per pass, and no callback, pool or counter.
 */
final class PipelinedNio {
    private static final int ACKNOWLEDGEMENT = 8;
    /** Whether the READ baseline parses, checks and copies each message (see the class comment). */
    static final boolean FRAMED = Boolean.getBoolean("bench.framed");
    /** The Read Request's fields after the MPA length and the untagged DDP header, as soft lays them out. */
    private static final int SINK_OFFSET_AT = 2 + 18 + 4;
    private static final int LENGTH_AT = SINK_OFFSET_AT + 8;
    private static final int SOURCE_TOKEN_AT = LENGTH_AT + 4;
    private static final int SOURCE_OFFSET_AT = SOURCE_TOKEN_AT + 4;
    /** The token the framed server's memory answers to. */
    private static final int SOURCE_TOKEN = 0x5EED;
    private static final int CONNECT_MILLIS = 20_000;
    private static final long ACCEPT_NANOS = TimeUnit.SECONDS.toNanos(20);

    private PipelinedNio() {
    }

    /** The request's bytes for an operation of {@code size} bytes. */
    static int request(MessageRate.Op op, int size) {
        return switch (op) {
            case READ -> fpdu(18 + 28);
            case WRITE -> fpdu(14 + size);
            case SEND -> fpdu(18 + size);
        };
    }

    /** The response's bytes for an operation of {@code size} bytes. */
    static int response(MessageRate.Op op, int size) {
        return op == MessageRate.Op.READ ? size : ACKNOWLEDGEMENT;
    }

    /** An FPDU's bytes for a DDP segment (header and payload) of {@code ulpdu} bytes. */
    private static int fpdu(int ulpdu) {
        return 2 + ulpdu + (-(2 + ulpdu) & 3) + 4;
    }

    /** The client side: {@code n} connections with {@code window} requests in flight on each, driven by its caller. */
    static final class Client implements MessageRate.Load, AutoCloseable {
        private final Pipe[] pipes;
        private long completed;
        private long outstanding;
        private boolean issuing = true;

        Client(InetSocketAddress server, int n, int window, int request, int response) throws IOException {
            pipes = new Pipe[n];
            try {
                for (int i = 0; i < n; i++) {
                    SocketChannel channel = SocketChannel.open();
                    pipes[i] = new Pipe(channel, window, response, request);
                    channel.socket().connect(server, CONNECT_MILLIS);
                    pipes[i].start();
                    if (FRAMED) {
                        pipes[i].requestAll();
                    } else {
                        pipes[i].owe(window);
                    }
                }
            } catch (IOException e) {
                close();
                throw e;
            }
            outstanding = (long) n * window;
        }

        /** Requests answered so far. */
        @Override
        public long completed() {
            return completed;
        }

        @Override
        public void runUntil(long deadline) throws IOException {
            while (System.nanoTime() - deadline < 0) {
                pass();
            }
        }

        /** Stops sending requests and drives the connections until all were answered, failing after {@code nanos}. */
        void drain(long nanos) throws IOException {
            issuing = false;
            long deadline = System.nanoTime() + nanos;
            while (outstanding > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException(outstanding + " baseline requests were not answered within "
                            + TimeUnit.NANOSECONDS.toSeconds(nanos) + " s");
                }
                pass();
            }
        }

        private void pass() throws IOException {
            for (Pipe p : pipes) {
                int answered = FRAMED ? p.takeResponses(issuing) : p.read();
                if (answered < 0) {
                    throw new IOException("the baseline server closed a connection");
                }
                completed += answered;
                if (!issuing) {
                    outstanding -= answered;
                } else if (!FRAMED) {
                    p.owe(answered);
                }
                p.flush();
            }
        }

        @Override
        public void close() throws IOException {
            for (Pipe p : pipes) {
                if (p != null) {
                    p.channel.close();
                }
            }
        }
    }

    /**
     * The server side on the calling thread: accepts {@code n} connections from {@code listener}, closes it, and
     * answers their requests, busy-polling, until the client has closed them all.
     */
    static void serve(ServerSocketChannel listener, int n, int window, int request, int response)
            throws IOException {
        Pipe[] pipes = new Pipe[n];
        int open = 0;
        try {
            try (listener) {
                listener.configureBlocking(false);
                long deadline = System.nanoTime() + ACCEPT_NANOS;
                while (open < n) {
                    SocketChannel channel = listener.accept();
                    if (channel != null) {
                        pipes[open] = new Pipe(channel, window, request, response);
                        pipes[open++].start();
                    } else if (System.nanoTime() - deadline > 0) {
                        throw new IOException("the client opened " + open + " of " + n + " baseline connections in "
                                + TimeUnit.NANOSECONDS.toSeconds(ACCEPT_NANOS) + " s");
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
            ByteBuffer memory = FRAMED ? memory(window * response) : null;
            while (open > 0) {
                for (int i = 0; i < open; i++) {
                    int requests = FRAMED ? pipes[i].answerRequests(memory) : pipes[i].read();
                    if (requests < 0) {
                        pipes[i].channel.close();
                        pipes[i] = pipes[--open]; // the last one moves here and is read next
                        i--;
                    } else {
                        if (!FRAMED) {
                            pipes[i].owe(requests);
                        }
                        pipes[i].flush();
                    }
                }
            }
        } finally {
            for (int i = 0; i < open; i++) {
                pipes[i].channel.close();
            }
        }
    }

    /** The framed server's memory: {@code bytes} of a pattern its client's copies carry. */
    private static ByteBuffer memory(int bytes) {
        ByteBuffer memory = ByteBuffer.allocateDirect(bytes);
        for (int i = 0; i < bytes; i++) {
            memory.put(i, (byte) i);
        }
        return memory;
    }

    /** One end of one connection: what it has read of the next inbound message, and the bytes it owes its peer. */
    private static final class Pipe {
        final SocketChannel channel;
        private final ByteBuffer in;
        private final ByteBuffer out;
        private final int inSize;
        private final int outSize;
        private int partial;
        private int owed;
        /** Framed client: where each response's bytes go, and the slots asked for, oldest first. */
        private final ByteBuffer sink;
        private final int[] slots;
        private int oldest;
        private int asked;

        Pipe(SocketChannel channel, int window, int inSize, int outSize) {
            this.channel = channel;
            this.inSize = inSize;
            this.outSize = outSize;
            // At most a window of messages is unanswered each way: one read or write of a window takes all there is.
            in = ByteBuffer.allocateDirect(window * inSize);
            out = ByteBuffer.allocateDirect(window * outSize);
            sink = FRAMED ? ByteBuffer.allocateDirect(window * inSize) : null;
            slots = FRAMED ? new int[window] : null;
        }

        /** Once connected: non-blocking, without Nagle's delay. */
        void start() throws IOException {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
        }

        /** Reads all the socket has in one call; returns the messages that completed, -1 at the end of the stream. */
        int read() throws IOException {
            int n = channel.read(in.clear());
            if (n <= 0) {
                return n;
            }
            partial += n;
            int messages = partial / inSize;
            partial -= messages * inSize;
            return messages;
        }

        void owe(int messages) {
            owed += messages * outSize;
        }

        /** Writes all it owes in one call, as far as the socket takes it. */
        void flush() throws IOException {
            if (FRAMED) {
                if (out.position() > 0) {
                    channel.write(out.flip());
                    out.compact();
                }
            } else if (owed > 0) {
                owed -= channel.write(out.clear().limit(owed));
            }
        }

        /** Framed client: asks for every slot of the window. */
        void requestAll() {
            for (int slot = 0; slot < slots.length; slot++) {
                request(slot);
            }
        }

        /** Framed client: queues a Read Request for slot {@code slot}'s {@code inSize} bytes. */
        private void request(int slot) {
            int p = out.position();
            long offset = (long) slot * inSize;
            out.putShort(p, (short) (outSize - 6)); // the MPA length: the ULPDU, without the length and CRC fields
            out.putLong(p + SINK_OFFSET_AT, offset);
            out.putInt(p + LENGTH_AT, inSize);
            out.putInt(p + SOURCE_TOKEN_AT, SOURCE_TOKEN);
            out.putLong(p + SOURCE_OFFSET_AT, offset);
            out.position(p + outSize);
            slots[(oldest + asked++) % slots.length] = slot;
        }

        /**
         * Framed client: reads what the socket has, copies each whole response into the slot it answers and, when
         * {@code again}, asks for that slot again; returns the responses taken, -1 at the end of the stream.
         */
        int takeResponses(boolean again) throws IOException {
            int n = channel.read(in);
            if (n <= 0) {
                return n;
            }
            in.flip();
            int taken = 0;
            while (in.remaining() >= inSize) {
                int slot = slots[oldest];
                oldest = (oldest + 1) % slots.length;
                asked--;
                sink.put(slot * inSize, in, in.position(), inSize);
                in.position(in.position() + inSize);
                taken++;
                if (again) {
                    request(slot);
                }
            }
            in.compact();
            return taken;
        }

        /**
         * Framed server: reads what the socket has and answers each whole Read Request with the bytes of
         * {@code memory} it names, after checking its token and range; returns the requests answered, -1 at the end
         * of the stream.
         */
        int answerRequests(ByteBuffer memory) throws IOException {
            int n = channel.read(in);
            if (n <= 0) {
                return n;
            }
            in.flip();
            int answered = 0;
            while (in.remaining() >= inSize) {
                int p = in.position();
                int length = in.getInt(p + LENGTH_AT);
                int token = in.getInt(p + SOURCE_TOKEN_AT);
                long offset = in.getLong(p + SOURCE_OFFSET_AT);
                if (token != SOURCE_TOKEN || length != outSize || offset < 0 || offset > memory.capacity() - length) {
                    throw new IOException("a framed baseline request names [" + offset + ", +" + length
                            + ") of token " + token);
                }
                out.put(out.position(), memory, (int) offset, length);
                out.position(out.position() + length);
                in.position(p + inSize);
                answered++;
            }
            in.compact();
            return answered;
        }
    }
}
