package dev.rdmafutures.soft;

import dev.rdmafutures.RdmaException;
import dev.rdmafutures.Status;
import dev.rdmafutures.spi.BoundListener;
import dev.rdmafutures.spi.ConnectAttempt;
import dev.rdmafutures.spi.ConnectEvents;
import dev.rdmafutures.spi.ConnectSpec;
import dev.rdmafutures.spi.ConnectionEvents;
import dev.rdmafutures.spi.EventLoop;
import dev.rdmafutures.spi.ListenEvents;
import dev.rdmafutures.spi.PollerContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One poller's selector and the sockets registered with it. Confined to the poller thread but {@link #wakeup()}.
 *
 * <p>With up to {@value #DIRECT_READ_LIMIT} established connections, each poll reads the sockets of the busy ones
 * directly, as a busy-polling socket program does: a message is then found by one read instead of an epoll call and
 * a read. A connection is busy from a read that brought bytes until at least {@value #IDLE_AFTER} reads in a row have
 * found none over at least {@value #QUIET_MICROS} µs; the selector watches the others, so an idle poll costs one epoll
 * call, not a read per connection (which, in a spinning idle strategy, took the core from the threads that had work).
 * With all of them busy the selector is asked only every {@value #SELECT_INTERVAL} polls (accepts, connects, closes)
 * or while a socket's send buffer is full; a poll that selects reads no socket directly (the selection reports the
 * busy ones' bytes too), the first poll after a blocking wait dispatches the keys the wait collected, if any,
 * without selecting or reading again, and the poll after that one looks at no socket either (the next look or wait
 * finds what came since). With more connections, the selector alone finds them. While
 * a handshake waits for its peer's next message (TCP connect, MPA Request, Reply or RTR), whose socket only the
 * selector watches, every poll that looks asks it: a set-up step then waits for no interval.
 */
final class SoftEventLoop implements EventLoop {
    private static final int DIRECT_READ_LIMIT = 8;
    private static final int SELECT_INTERVAL = 64;
    /**
     * Reads that found nothing before a busy connection is left to the selector: a peer that answers a burst a few
     * polls later is read again directly, not found through an epoll call and then read.
     */
    private static final int IDLE_AFTER = 8;
    /**
     * How long those empty reads must span, too: a count alone ran out within a few microseconds on a fast spin,
     * shorter than the round trip of a burst between two processes, so every next burst was found by an epoll call.
     * Bounded, so an idle connection still stops costing a read per poll soon after its last bytes.
     */
    private static final long QUIET_MICROS = 100;
    private static final long QUIET_NANOS = QUIET_MICROS * 1_000;
    private final SoftDevice device;
    private final PollerContext poller;
    private final Selector selector;
    private final Set<SelectionHandler> handlers = new LinkedHashSet<>();
    private final ArrayList<SoftConnection> established = new ArrayList<>();
    private final DirectBuffers directBuffers = new DirectBuffers();
    /** Sockets with bytes queued in this duty cycle, written by {@link #flush()}; each listed once. */
    private final ArrayList<MpaTransport> unflushed = new ArrayList<>();
    private int pollsSinceSelect;
    /** Handshakes waiting for their peer's next message: while there are any, every poll that looks selects. */
    private int awaitingPeer;
    private boolean selectNext;
    private boolean closed;
    /** The keys the last gather's selection reported, dispatched in that order; reused, so a cycle allocates none. */
    private final ArrayList<SelectionKey> readyKeys = new ArrayList<>();
    private final Consumer<SelectionKey> collector = readyKeys::add;
    /** Whether the last gather found busy connections, which the dispatch reads directly. */
    private boolean readBusy;
    /**
     * A blocking wait ran since the last gather: the next poll dispatches the keys it collected (none after a
     * wake-up or a timeout) and looks no further, since the wait has just looked at every socket.
     */
    private boolean waited;
    /**
     * The last gather dispatched a blocking wait's keys (none after a wake-up or a timeout): this one looks at no
     * socket, since the wait looked at all of them a moment ago. Bytes that came since are found by the next look, or
     * by the next wait, whose selection returns at once for them; the poller runs no deadline until then
     * ({@link #gatherLooked()}). Without this, a loop that sends in the poll after the wait's (a Netty task's write)
     * read its busy sockets in vain right after its {@code writev}: one empty read per side and unary call.
     */
    private boolean lookedAtWait;
    /** Whether the last gather looked (selected, read directly, or dispatched a wait's keys). */
    private boolean looked = true;

    SoftEventLoop(SoftDevice device, PollerContext poller) {
        this.device = device;
        this.poller = poller;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw SocketErrors.resources(e, "open selector");
        }
    }

    SoftDevice device() {
        return device;
    }

    PollerContext poller() {
        return poller;
    }

    /** The direct buffers this poller's sockets write headers, trailers and copies from and parse inbound bytes in. */
    DirectBuffers directBuffers() {
        return directBuffers;
    }

    boolean isClosed() {
        return closed;
    }

    SelectionKey register(SelectableChannel channel, int ops, SelectionHandler handler) throws ClosedChannelException {
        SelectionKey key = channel.register(selector, ops, handler);
        handlers.add(handler);
        return key;
    }

    void deregister(SelectionHandler handler) {
        handlers.remove(handler);
        if (!(handler instanceof SoftConnection connection)) {
            return;
        }
        awaitsPeer(connection, false);
        if (connection.establishedIndex >= 0) {
            // The last one takes its place: O(1) with thousands established, where remove(Object) walked them all.
            SoftConnection last = established.remove(established.size() - 1);
            if (last != connection) {
                established.set(connection.establishedIndex, last);
                last.establishedIndex = connection.establishedIndex;
            }
            connection.establishedIndex = -1;
        }
    }

    /** An established connection whose socket polls may read directly while it is busy. */
    void readDirectly(SoftConnection connection) {
        awaitsPeer(connection, false);
        connection.busy = true;
        connection.emptyReads = 0;
        connection.establishedIndex = established.size();
        established.add(connection);
    }

    /**
     * Whether {@code connection}'s handshake waits for its peer's next message; idempotent. Every poll that looks
     * selects while any does, and stops when it is established, closed, or waits for the application instead.
     */
    void awaitsPeer(SoftConnection connection, boolean awaits) {
        if (connection.awaitsPeer != awaits) {
            connection.awaitsPeer = awaits;
            awaitingPeer += awaits ? 1 : -1;
        }
    }

    /**
     * {@inheritDoc} Here: the keys the last blocking wait collected; nothing, without looking, in the poll right
     * after that one; or the keys a selection reports (every poll while a handshake waits for its peer, a busy
     * connection's socket has no room, or any connection is idle; otherwise every {@value #SELECT_INTERVAL}th poll);
     * or else the busy connections, which the dispatch reads directly.
     */
    @Override
    public int gather() {
        readBusy = false;
        looked = true;
        if (waited) {
            // The wait just selected: its keys are the ready sockets, busy ones included, so neither another
            // selection nor a direct read would find more. A wake-up without keys brought a command, which this
            // cycle's command phase runs; bytes that came since are found by the gather after next, or a wait.
            waited = false;
            lookedAtWait = true;
            pollsSinceSelect = 0;
            return readyKeys.size();
        }
        readyKeys.clear();
        if (closed) {
            return 0;
        }
        if (lookedAtWait) {
            lookedAtWait = false;
            looked = false;
            return 0;
        }
        int busy = 0;
        if (!established.isEmpty() && established.size() <= DIRECT_READ_LIMIT) {
            boolean anyIdle = false;
            for (int i = 0; i < established.size(); i++) {
                SoftConnection connection = established.get(i);
                busy += connection.busy ? 1 : 0;
                anyIdle |= !connection.busy;
                selectNext |= connection.waitsForSocketRoom();
            }
            readBusy = busy > 0;
            if (!anyIdle && !selectNext && awaitingPeer == 0 && ++pollsSinceSelect < SELECT_INTERVAL) {
                return busy;
            }
        }
        pollsSinceSelect = 0;
        selectNext = false;
        readBusy = false; // this selection reports the busy sockets' bytes too: a direct read would find none more
        try {
            // The action form hands each ready key to the collector: no selected-key set to fill and drain.
            return selector.selectNow(collector);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean gatherLooked() {
        return looked;
    }

    /**
     * {@inheritDoc} The keys gathered (accepts, connects, room to write, bytes on sockets), or, in a poll that
     * gathered none by selection, the direct reads of the busy connections.
     */
    @Override
    public int dispatch() {
        int work = 0;
        for (int i = 0; i < readyKeys.size() && !closed; i++) {
            dispatch(readyKeys.get(i));
            work++;
        }
        readyKeys.clear();
        if (readBusy) {
            // By index: a connection that closes while reading leaves the list, the last one taking its place
            // (which then waits a poll).
            for (int i = 0; i < established.size() && !closed; i++) {
                SoftConnection connection = established.get(i);
                if (!connection.busy) {
                    continue;
                }
                if (connection.readDirectly()) {
                    connection.emptyReads = 0;
                    work++;
                } else if (++connection.emptyReads == 1) {
                    connection.quietSince = System.nanoTime(); // real time: a heuristic, not a deadline
                } else if (connection.emptyReads >= IDLE_AFTER
                        && System.nanoTime() - connection.quietSince >= QUIET_NANOS) {
                    connection.busy = false; // quiet for a while: the selector reports its next bytes
                }
            }
        }
        return work;
    }

    /** {@code transport} queued bytes: they leave with everything else this duty cycle queued, at its flush. */
    void flushLater(MpaTransport transport) {
        unflushed.add(transport);
    }

    @Override
    public int flush() {
        // By index, to the end as it grows: what a write's completion queues on the spot leaves in this flush too.
        for (int i = 0; i < unflushed.size(); i++) {
            MpaTransport transport = unflushed.get(i);
            transport.flushQueued();
            selectNext |= transport.waitsForRoom();
        }
        int flushed = unflushed.size();
        unflushed.clear();
        return flushed;
    }

    @Override
    public void await(long maxNanos) {
        if (closed) {
            return;
        }
        try {
            // Wait and collect. The keys are dispatched after the next gather(), once the poller has run the commands
            // that arrived meanwhile: a command issued before an event (a cancel before the peer's reply) goes first.
            // The action form fills no selected-key set, which would allocate an entry per key.
            readyKeys.clear();
            selector.select(collector, Math.max(1, maxNanos / 1_000_000));
            waited = true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void dispatch(SelectionKey key) {
        if (key.isValid()) {
            try {
                ((SelectionHandler) key.attachment()).onReady(key);
            } catch (RuntimeException e) {
                poller.recordError("soft socket handler", e);
            }
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public ConnectAttempt connect(ConnectSpec spec, ConnectionEvents connectionEvents, ConnectEvents events) {
        if (closed) {
            events.onFailed(new RdmaException(Status.CANCELED, "the runtime is closing"));
            return error -> { };
        }
        return ActiveHandshake.connect(this, spec, connectionEvents, events);
    }

    @Override
    public void listen(BoundListener listener, ListenEvents events) {
        if (closed) {
            listener.close();
            return;
        }
        ((SoftListener) listener).startAccepting(this, events);
    }

    /** Takes over a socket a listener accepted; the MPA exchange starts here. */
    void adoptPassive(SocketChannel channel, ListenEvents events) {
        if (closed) {
            SoftDevice.closeQuietly(channel);
            return;
        }
        PassiveHandshake.accepted(this, channel, events);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (SelectionHandler handler : new ArrayList<>(handlers)) {
            try {
                handler.onLoopClosed();
            } catch (RuntimeException e) {
                poller.recordError("soft close", e);
            }
        }
        handlers.clear();
        try {
            selector.close();
        } catch (IOException e) {
            poller.recordError("close selector", e);
        }
    }
}
