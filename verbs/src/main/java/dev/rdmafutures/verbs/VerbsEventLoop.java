package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
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
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One poller's CM event channels (its own and those of the listeners it serves), the device's asynchronous events
 * ({@link DeviceEvents}), the completion channel its CQs report to, and an eventfd for wake-ups, all waited on with
 * one {@code poll(2)} ({@link PollSet}). Its connections share a few CQs ({@link CompletionQueues}), so a duty cycle's
 * cost does not grow with the number of connections; a listener's requests are dealt over the device's loops
 * ({@link RequestDealing}). Confined to the poller thread but {@link #wakeup()}.
 */
final class VerbsEventLoop implements EventLoop {
    /** In spin modes CM channels and device events are checked every this many polls; a blocking wait always. */
    private static final int EVENT_CHECK_INTERVAL = 64;
    /** CQ events read per call: one per CQ that fired, and a loop has few CQs. */
    private static final int FIRED_CAPACITY = 16;

    private final VerbsDevice device;
    private final PollerContext poller;
    private final RdmaEventChannel ownChannel;
    /** The native handle of {@link #ownChannel}, where other loops move the connect requests they deal to this one. */
    private final long ownChannelHandle;
    private final List<CmEventChannel> channels = new ArrayList<>();
    private final IbvCompChannel compChannel;
    private final long compChannelHandle;
    private final int wakeupFd;
    private final DeviceEvents deviceEvents;
    private final ByteBuffer cmIdInfo = direct(NativeVerbs.CM_ID_INFO_SIZE);
    private final long cmIdInfoAddress = MemoryUtils.getAddress(cmIdInfo);
    private final ByteBuffer eventInfo = direct(NativeVerbs.CM_EVENT_INFO_SIZE);
    private final long eventInfoAddress = MemoryUtils.getAddress(eventInfo);
    private final CmEvent event = new CmEvent(eventInfo);
    private final ByteBuffer fired = direct(FIRED_CAPACITY * Long.BYTES);
    private final long firedAddress = MemoryUtils.getAddress(fired);
    private final Map<Long, VerbsConnection> connectionsById = new HashMap<>();
    private final CompletionQueues completionQueues;
    /** Queue pairs and shared receive queues with work requests gathered this duty cycle, each listed once. */
    private final ArrayList<PendingPosts> unposted = new ArrayList<>();
    /** CM ids destroyed so far: destroying an id drops its events that wait on the channel. */
    private long idsDestroyed;
    /** {@link #idsDestroyed} when the last gather found CM channels ready. */
    private long idsDestroyedAtGather;
    /** Whether the last gather found CM channels ready: the poll set's revents say which. */
    private boolean cmEventsReady;
    /** Whether the last gather found device events ready. */
    private boolean deviceEventsReady;
    private final PollSet pollSet;
    private int pollsSinceEventCheck;
    private boolean eventsReady = true;
    private boolean closed;
    /** Guards the wake-up descriptor's close against a wake-up from another thread. */
    private final Object wakeupLock = new Object();
    /** Guarded by {@link #wakeupLock}. */
    private boolean wakeupClosed;

    VerbsEventLoop(VerbsDevice device, PollerContext poller) {
        this.device = device;
        this.poller = poller;
        try {
            this.ownChannel = device.cm().createEventChannel();
            this.ownChannelHandle = ((NatObject) ownChannel).getObjId();
            channels.add(new CmEventChannel(ownChannel));
            this.compChannel = device.context().createCompChannel();
            this.compChannelHandle = ((NatObject) compChannel).getObjId();
        } catch (IOException e) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "creating a verbs event loop failed: " + e, e);
        }
        int fd = NativeVerbs.createWakeup();
        if (fd < 0) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "eventfd failed: errno " + -fd);
        }
        this.wakeupFd = fd;
        this.completionQueues = new CompletionQueues(this, compChannel, device.maxCompletionQueueEntries());
        this.deviceEvents = DeviceEvents.subscribe(device, this);
        this.pollSet = new PollSet(NativeVerbs.compChannelFd(compChannelHandle), wakeupFd);
        rebuildPollSet();
    }

    private static ByteBuffer direct(int size) {
        return ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
    }

    VerbsDevice device() {
        return device;
    }

    PollerContext poller() {
        return poller;
    }

    /** The CQs this loop's queue pairs share. */
    CompletionQueues completionQueues() {
        return completionQueues;
    }

    RdmaEventChannel ownChannel() {
        return ownChannel;
    }

    /** The native handle of {@link #ownChannel()}, where other loops move the requests they deal to this one. */
    long ownChannelHandle() {
        return ownChannelHandle;
    }

    /** Whether this loop has closed; on its thread. */
    boolean isClosed() {
        return closed;
    }

    boolean execute(Runnable command) {
        return poller.execute(command);
    }

    /** Routes the id's CM events to {@code connection}. */
    void track(long idHandle, VerbsConnection connection) {
        connectionsById.put(idHandle, connection);
    }

    /** The device port a CM id is bound to (known once its address is resolved or its request arrived), or 0. */
    int portOf(long idHandle) {
        int rc = NativeVerbs.getCmIdInfo(idHandle, cmIdInfoAddress);
        return rc < 0 ? 0 : Byte.toUnsignedInt(cmIdInfo.get(NativeLayout.CmIdInfo.PORT_NUMBER));
    }

    private void rebuildPollSet() {
        int[] fds = new int[channels.size()];
        for (int i = 0; i < fds.length; i++) {
            fds[i] = channels.get(i).fd;
        }
        pollSet.rebuild(fds, deviceEvents.fd());
    }

    /**
     * {@inheritDoc} Here: a batch of completions from each CQ, and (every poll after a blocking wait or a CM event,
     * otherwise every {@value #EVENT_CHECK_INTERVAL}th) which CM channels have an event and whether the device
     * reported one.
     */
    @Override
    public int gather() {
        cmEventsReady = false;
        deviceEventsReady = false;
        if (closed) {
            return 0;
        }
        int ready = 0;
        if (eventsReady || ++pollsSinceEventCheck >= EVENT_CHECK_INTERVAL) {
            pollsSinceEventCheck = 0;
            eventsReady = false;
            if (pollSet.pollEventsNow()) {
                cmEventsReady = true;
                idsDestroyedAtGather = idsDestroyed;
                deviceEventsReady = pollSet.deviceEventsReady();
                ready++;
            }
        }
        try {
            ready += completionQueues.gather();
        } catch (RuntimeException e) {
            poller.recordError("verbs completion", e);
        }
        return ready;
    }

    @Override
    public int dispatch() {
        int work = 0;
        if (cmEventsReady) {
            for (int i = 0; i < channels.size() && !closed; i++) { // a command may have added a listener's channel
                work += readCmEvent(i);
            }
        }
        if (!closed) {
            try {
                work += completionQueues.dispatch();
            } catch (RuntimeException e) {
                poller.recordError("verbs completion", e);
            }
        }
        // After the completions: those that came before a port or QP failed keep their own outcome.
        if (deviceEventsReady && !closed) {
            work += deviceEvents.drain(this);
            pollSet.deviceEventsFd(deviceEvents.fd()); // -1 once it failed
        }
        cmEventsReady = false;
        deviceEventsReady = false;
        return work;
    }

    /** {@code posts} gathered work requests this duty cycle: they are posted at its flush. */
    void postLater(PendingPosts posts) {
        unposted.add(posts);
    }

    /**
     * Posts each queue's chains of this duty cycle with one call each: one doorbell per queue pair, not per request;
     * every queue's receives before any queue's sends ({@link PendingPosts#postAll}).
     */
    @Override
    public int flush() {
        int work = PendingPosts.postAll(unposted);
        unposted.clear();
        return work;
    }

    /**
     * Posts the receives this duty cycle gathered so far on every queue, before a send chain that leaves ahead of the
     * flush (a window bind or invalidation): the receives posted before its Sends stay ahead of them.
     */
    void postReceivesNow() {
        for (int i = 0; i < unposted.size(); i++) {
            unposted.get(i).postPendingReceives();
        }
    }

    /**
     * Reads one CM event from the channel in poll slot {@code slot} if the gather found it ready: the poller has run
     * the commands handed over before then, and librdmacm acts while it reads an event (it answers a connect
     * response with the RTU), so a cancel issued before the peer's answer arrived runs before that answer is read.
     * One event per check: a second would be one that may have arrived after the commands ran; the next gather
     * looks again at once. A command that destroyed an id took that id's waiting events along, so after one the
     * event seen may be gone: the channel is left to the next gather.
     */
    private int readCmEvent(int slot) {
        if (!pollSet.cmChannelReady(slot)) {
            return 0;
        }
        eventsReady = true;
        if (idsDestroyed != idsDestroyedAtGather) {
            return 0;
        }
        CmEventChannel channel = channels.get(slot);
        int type = NativeVerbs.getCmEvent(channel.handle, eventInfoAddress, 0);
        if (type < 0) {
            return 0;
        }
        dispatch(type, channel);
        return 1;
    }

    private void dispatch(int type, CmEventChannel channel) {
        try {
            if (type == CmEvent.CONNECT_REQUEST) {
                if (channel.listener() != null) {
                    RequestDealing.onConnectRequest(this, channel.listener(), channel.events, event);
                } else {
                    VerbsDevice.destroyQuietly(device.wrapRequestId(event.id(), channel.channel));
                }
                return;
            }
            VerbsConnection connection = connectionsById.get(event.id());
            if (connection != null) {
                connection.onCmEvent(event);
            }
        } catch (IOException | RuntimeException e) {
            poller.recordError("verbs CM event " + event, e);
        }
    }

    @Override
    public void await(long maxNanos) {
        if (closed) {
            return;
        }
        try {
            if (completionQueues.arm()) {
                return; // completions arrived before arming: no event will come for them
            }
        } catch (IOException e) {
            poller.recordError("arm completion queue", e);
            return;
        }
        int timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxNanos / 1_000_000));
        if (pollSet.pollAll(timeoutMs) <= 0) {
            return;
        }
        if (pollSet.anyEventReady()) {
            eventsReady = true;
        }
        if (pollSet.completionChannelReady()) {
            readCqEvents();
        }
        if (pollSet.wakeupReady()) {
            NativeVerbs.drainWakeup(wakeupFd);
        }
    }

    /**
     * Reads the completion events the wait found: no more than the CQs armed (each raises one, then waits to be armed
     * again), so that a loop with one CQ makes one read, not a second that finds nothing. At least one, so that an
     * event of a CQ retired since it was armed is read too, and the channel does not stay readable under the next wait.
     */
    private void readCqEvents() {
        int expected = Math.max(1, completionQueues.armedCount());
        int count;
        do {
            count = NativeVerbs.getCqEvents(compChannelHandle, firedAddress, Math.min(expected, FIRED_CAPACITY));
            if (count < 0) {
                poller.recordError("read completion events", new IOException(
                        "reading the completion channel's events failed: errno " + -count));
                return;
            }
            for (int i = 0; i < count; i++) {
                completionQueues.onEvent(fired.getLong(i * Long.BYTES));
            }
            expected -= count;
        } while (count == FIRED_CAPACITY && expected > 0);
    }

    /**
     * {@inheritDoc} Any thread, also while or after the loop closes: the descriptor is written only while open, so a
     * late wake-up never reaches a descriptor the process has reused since.
     */
    @Override
    public void wakeup() {
        synchronized (wakeupLock) {
            if (!wakeupClosed) {
                NativeVerbs.signalWakeup(wakeupFd);
            }
        }
    }

    @Override
    public ConnectAttempt connect(ConnectSpec spec, ConnectionEvents connectionEvents, ConnectEvents events) {
        if (closed) {
            events.onFailed(new RdmaException(Status.CANCELED, "the runtime is closing"));
            return error -> { };
        }
        return ActiveHandshake.start(this, spec, connectionEvents, events);
    }

    @Override
    public void listen(BoundListener bound, ListenEvents events) {
        VerbsListener listener = (VerbsListener) bound;
        if (closed) {
            listener.close();
            return;
        }
        if (listener.attach(this)) {
            channels.add(new CmEventChannel(listener.channel(), listener, events));
            rebuildPollSet();
            eventsReady = true;
        }
    }

    /** A device event, on this loop's thread: each connection decides whether it concerns it. */
    void onDeviceEvent(AsyncEvent event) {
        if (closed || !event.isFatal()) {
            return;
        }
        for (VerbsConnection connection : new ArrayList<>(connectionsById.values())) {
            try {
                connection.onDeviceEvent(event);
            } catch (RuntimeException e) {
                poller.recordError("verbs device event " + event, e);
            }
        }
    }

    /** Destroys a closed listener's id and channel; requests it spawned stay with their connections. */
    void stopListening(VerbsListener listener) {
        for (int i = 0; i < channels.size(); i++) {
            if (channels.get(i).listener() == listener) {
                channels.get(i).stopListening();
            }
        }
        idsDestroyed++;
        VerbsDevice.destroyQuietly(listener.id());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        deviceEvents.unsubscribe(this);
        for (VerbsConnection connection : new ArrayList<>(connectionsById.values())) {
            try {
                connection.onLoopClosed();
            } catch (RuntimeException e) {
                poller.recordError("verbs close", e);
            }
        }
        connectionsById.clear();
        flush(); // what remains is shared receive queues': their receives outlive this loop's connections
        for (CmEventChannel channel : channels) {
            if (channel.listener() != null) {
                VerbsDevice.destroyQuietly(channel.listener().id());
            }
        }
        completionQueues.close(); // after every connection destroyed its QP
        try {
            compChannel.destroyCompChannel(); // after the CQs
        } catch (IOException e) {
            poller.recordError("destroy completion channel", e);
        }
        for (CmEventChannel channel : channels) {
            if (channel.owner != null) {
                channel.owner.destroyChannel(); // in turn with another loop's move of a request still on it
            } else {
                VerbsDevice.destroyQuietly(channel.channel);
            }
        }
        synchronized (wakeupLock) {
            wakeupClosed = true;
            NativeVerbs.closeFd(wakeupFd);
        }
    }

    /** Destroys an id this loop no longer routes. */
    void forget(RdmaCmId id, long idHandle) {
        connectionsById.remove(idHandle);
        idsDestroyed++;
        VerbsDevice.destroyQuietly(id);
    }
}
