package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;
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
 * One poller's CM event channels (its own and those of the listeners it serves), its completion channel and CQ,
 * and an eventfd for wake-ups. Completions are polled with DiSNI's stateful {@link SVCPollCq} into reused
 * {@link IbvWC}s and routed by our own work-request ids (endpoint slot and generation), never by the completion's
 * {@code qp_num}, which DiSNI leaves stale on errors. Confined to the poller thread but {@link #wakeup()}.
 */
final class VerbsEventLoop implements EventLoop {
    private static final int CQ_SIZE = 4096;
    private static final int POLL_BATCH = 32;
    /** In spin modes CM channels are checked every this many polls; a blocking wait checks them always. */
    private static final int CM_CHECK_INTERVAL = 64;
    private static final int POLLIN = 1;

    private final VerbsDevice device;
    private final PollerContext poller;
    private final RdmaEventChannel ownChannel;
    private final List<Channel> channels = new ArrayList<>();
    private final IbvCompChannel compChannel;
    private final long compChannelHandle;
    private final IbvCQ cq;
    private final IbvWC[] completions = new IbvWC[POLL_BATCH];
    private final SVCPollCq pollCall;
    private final SVCReqNotify notifyCall;
    private final int wakeupFd;
    private final ByteBuffer eventInfo = direct(NativeVerbs.CM_EVENT_INFO_SIZE);

    private final long eventInfoAddress = MemoryUtils.getAddress(eventInfo);
    private final CmEvent event = new CmEvent(eventInfo);
    private final Map<Long, VerbsEndpoint> endpointsById = new HashMap<>();
    private VerbsEndpoint[] slots = new VerbsEndpoint[64];
    private int nextGeneration = 1;
    private ByteBuffer pollFds;
    private long pollFdsAddress;
    private int pollsSinceCmCheck;
    private boolean cmReady = true;
    private int peeked;
    private boolean armed;
    private boolean closed;

    VerbsEventLoop(VerbsDevice device, PollerContext poller) {
        this.device = device;
        this.poller = poller;
        try {
            this.ownChannel = device.cm().createEventChannel();
            channels.add(new Channel(ownChannel, null));
            this.compChannel = device.context().createCompChannel();
            this.compChannelHandle = ((NatObject) compChannel).getObjId();
            this.cq = device.context().createCQ(compChannel, CQ_SIZE, 0);
            for (int i = 0; i < completions.length; i++) {
                completions[i] = new IbvWC();
            }
            this.pollCall = cq.poll(completions, POLL_BATCH);
            this.notifyCall = cq.reqNotification(false);
        } catch (IOException e) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "creating a verbs event loop failed: " + e, e);
        }
        int fd = NativeVerbs.createWakeup();
        if (fd < 0) {
            throw new RdmaException(Status.INSUFFICIENT_RESOURCES, "eventfd failed: errno " + -fd);
        }
        this.wakeupFd = fd;
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

    IbvCQ cq() {
        return cq;
    }

    RdmaEventChannel ownChannel() {
        return ownChannel;
    }

    boolean isClosed() {
        return closed;
    }

    boolean execute(Runnable command) {
        return poller.execute(command);
    }

    /** Routes the id's CM events to {@code endpoint}. */
    void track(long idHandle, VerbsEndpoint endpoint) {
        endpointsById.put(idHandle, endpoint);
    }

    void untrack(long idHandle) {
        endpointsById.remove(idHandle);
    }

    /** A slot for routing completions; the returned tag goes into the high half of every work-request id. */
    int allocateSlot(VerbsEndpoint endpoint) {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == null) {
                slots[i] = endpoint;
                return tag(i);
            }
        }
        int index = slots.length;
        slots = java.util.Arrays.copyOf(slots, slots.length * 2);
        slots[index] = endpoint;
        return tag(index);
    }

    private int tag(int index) {
        int generation = nextGeneration++ & 0x7FFF;
        return (generation << 16) | index;
    }

    void releaseSlot(int tag) {
        int index = tag & 0xFFFF;
        if (index < slots.length && slots[index] != null && slots[index].slotTag() == tag) {
            slots[index] = null;
        }
    }

    private void rebuildPollSet() {
        int count = channels.size() + 2;
        pollFds = direct(count * 8);
        pollFdsAddress = MemoryUtils.getAddress(pollFds);
        for (int i = 0; i < channels.size(); i++) {
            pollFds.putInt(i * 8, channels.get(i).fd);
        }
        pollFds.putInt(channels.size() * 8, NativeVerbs.compChannelFd(compChannelHandle));
        pollFds.putInt((channels.size() + 1) * 8, wakeupFd);
        for (int i = 0; i < count; i++) {
            pollFds.putShort(i * 8 + 4, (short) POLLIN);
        }
    }

    @Override
    public int poll() {
        if (closed) {
            return 0;
        }
        int work = 0;
        boolean commandsRan = false;
        if (cmReady || ++pollsSinceCmCheck >= CM_CHECK_INTERVAL) {
            pollsSinceCmCheck = 0;
            cmReady = false;
            for (int i = 0; i < channels.size() && !closed; i++) {
                Channel channel = channels.get(i);
                int type;
                while (!closed && (type = NativeVerbs.getCmEvent(channel.handle, eventInfoAddress, 0)) >= 0) {
                    if (!commandsRan) {
                        work += poller.runCommands(); // a command issued before this event is handled first
                        commandsRan = true;
                    }
                    dispatch(type, channel);
                    work++;
                }
            }
        }
        if (!closed) {
            work += drainCompletions(commandsRan);
        }
        return work;
    }

    private int drainCompletions(boolean commandsRan) {
        int total = 0;
        while (true) {
            int n = peeked;
            peeked = 0;
            if (n == 0) {
                n = pollCq();
            }
            if (n == 0) {
                return total;
            }
            if (!commandsRan) {
                total += poller.runCommands();
                commandsRan = true;
            }
            for (int i = 0; i < n; i++) {
                route(completions[i]);
            }
            total += n;
            if (n < POLL_BATCH || closed) {
                return total;
            }
        }
    }

    private int pollCq() {
        try {
            return pollCall.execute().getPolls();
        } catch (IOException e) {
            poller.recordError("poll completion queue", e);
            return 0;
        }
    }

    private void route(IbvWC completion) {
        long wrId = completion.getWr_id();
        int tag = (int) (wrId >>> 32);
        int index = tag & 0xFFFF;
        VerbsEndpoint endpoint = index < slots.length ? slots[index] : null;
        if (endpoint != null && endpoint.slotTag() == tag) {
            try {
                endpoint.onCompletion(completion, (int) wrId);
            } catch (RuntimeException e) {
                poller.recordError("verbs completion", e);
            }
        }
        // else: a flushed request of an endpoint already torn down, which failed it when it closed
    }

    private void dispatch(int type, Channel channel) {
        try {
            if (type == CmEvent.CONNECT_REQUEST) {
                if (channel.listener != null) {
                    VerbsEndpoint.onConnectRequest(this, channel.listener, channel.events, event);
                } else {
                    VerbsDevice.destroyQuietly(device.wrapRequestId(event.id(), channel.channel));
                }
                return;
            }
            VerbsEndpoint endpoint = endpointsById.get(event.id());
            if (endpoint != null) {
                endpoint.onCmEvent(event);
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
        if (!armed) {
            try {
                notifyCall.execute();
                armed = true;
            } catch (IOException e) {
                poller.recordError("arm completion queue", e);
                return;
            }
            // A completion that arrived before arming raises no event: look once more before sleeping.
            peeked = pollCq();
            if (peeked > 0) {
                return;
            }
        }
        int timeoutMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxNanos / 1_000_000));
        int ready = NativeVerbs.pollFds(pollFdsAddress, channels.size() + 2, timeoutMs);
        if (ready <= 0) {
            return;
        }
        for (int i = 0; i < channels.size(); i++) {
            if (pollFds.getShort(i * 8 + 6) != 0) {
                cmReady = true;
            }
        }
        if (pollFds.getShort(channels.size() * 8 + 6) != 0) {
            long fired = NativeVerbs.getCqEvent(compChannelHandle, 0);
            if (fired > 0) {
                try {
                    cq.ackEvents(1);
                } catch (IOException e) {
                    poller.recordError("acknowledge completion event", e);
                }
                armed = false;
            }
        }
        NativeVerbs.drainWakeup(wakeupFd);
    }

    @Override
    public void wakeup() {
        NativeVerbs.signalWakeup(wakeupFd);
    }

    @Override
    public ConnectAttempt connect(ConnectSpec spec, ConnectionEvents connectionEvents, ConnectEvents events) {
        if (closed) {
            events.onFailed(new RdmaException(Status.CANCELED, "the runtime is closing"));
            return error -> { };
        }
        return VerbsEndpoint.connect(this, spec, connectionEvents, events);
    }

    @Override
    public void listen(BoundListener bound, ListenEvents events) {
        VerbsListener listener = (VerbsListener) bound;
        if (closed) {
            listener.close();
            return;
        }
        if (listener.attach(this)) {
            channels.add(new Channel(listener.channel(), listener, events));
            rebuildPollSet();
            cmReady = true;
        }
    }

    /** Destroys a closed listener's id and channel; requests it spawned stay with their endpoints. */
    void stopListening(VerbsListener listener) {
        for (int i = 0; i < channels.size(); i++) {
            if (channels.get(i).listener == listener) {
                channels.get(i).listener = null; // its spawned ids may still report here
            }
        }
        VerbsDevice.destroyQuietly(listener.id());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (VerbsEndpoint endpoint : new ArrayList<>(endpointsById.values())) {
            try {
                endpoint.onLoopClosed();
            } catch (RuntimeException e) {
                poller.recordError("verbs close", e);
            }
        }
        endpointsById.clear();
        for (Channel channel : channels) {
            if (channel.listener != null) {
                VerbsDevice.destroyQuietly(channel.listener.id());
            }
        }
        try {
            cq.destroyCQ(); // every completion event was acknowledged when it was read
            compChannel.destroyCompChannel();
        } catch (IOException e) {
            poller.recordError("destroy completion queue", e);
        }
        for (Channel channel : channels) {
            VerbsDevice.destroyQuietly(channel.channel);
        }
        NativeVerbs.closeFd(wakeupFd);
    }

    /** A CM event channel this loop reads, and the listener whose requests arrive on it (null: our own). */
    private static final class Channel {
        final RdmaEventChannel channel;
        final long handle;
        final int fd;
        VerbsListener listener;
        final ListenEvents events;

        Channel(RdmaEventChannel channel, VerbsListener listener) {
            this(channel, listener, null);
        }

        Channel(RdmaEventChannel channel, VerbsListener listener, ListenEvents events) {
            this.channel = channel;
            this.handle = ((NatObject) channel).getObjId();
            this.fd = NativeVerbs.eventChannelFd(handle);
            this.listener = listener;
            this.events = events;
        }
    }

    /** Destroys an id this loop no longer routes. */
    void forget(RdmaCmId id, long idHandle) {
        untrack(idHandle);
        VerbsDevice.destroyQuietly(id);
    }
}
