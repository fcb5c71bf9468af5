package dev.rdmafutures.verbs;

import com.ibm.disni.util.MemoryUtils;
import dev.rdmafutures.verbs.jni.NativeVerbs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The asynchronous events of one device context: a port going down, a fatal QP or CQ error, a device failure, a
 * shared receive queue's limit. librdmacm gives a process one context per device, shared by every runtime and event
 * loop on it, and the kernel queues each event once on the context's async fd. So every loop on the context waits on
 * that fd, whichever sees it readable first reads what is there, logs each event once, and hands it to every loop,
 * each on its own thread, the other loops before its own, so that none waits for another's teardown; an event naming a
 * shared receive queue goes to that queue, on the reader's thread. Thread-safe.
 */
final class DeviceEvents {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceEvents.class);
    private static final Map<Long, DeviceEvents> BY_CONTEXT = new HashMap<>();
    /** The live shared receive queues of every context, by handle (pointers are unique while they live). */
    private static final Map<Long, VerbsSharedReceiveQueue> SHARED_QUEUES = new ConcurrentHashMap<>();

    private final long context;
    private final String deviceName;
    private final int fd;
    private final List<VerbsEventLoop> loops = new CopyOnWriteArrayList<>();
    private final ByteBuffer record = ByteBuffer.allocateDirect(NativeVerbs.ASYNC_EVENT_INFO_SIZE)
            .order(ByteOrder.nativeOrder());
    private final long recordAddress = MemoryUtils.getAddress(record);
    private volatile boolean broken;

    private DeviceEvents(long context, String deviceName, int fd) {
        this.context = context;
        this.deviceName = deviceName;
        this.fd = fd;
    }

    /** Hands {@code loop} the events of {@code device}'s context from now on. */
    static DeviceEvents subscribe(VerbsDevice device, VerbsEventLoop loop) {
        synchronized (BY_CONTEXT) {
            DeviceEvents events = BY_CONTEXT.computeIfAbsent(device.contextHandle(), context -> new DeviceEvents(
                    context, device.adapterInfo().deviceName(), NativeVerbs.asyncEventFd(context)));
            events.loops.add(loop);
            return events;
        }
    }

    /** Hands the events naming {@code queue} to it from now on. */
    static void watch(VerbsSharedReceiveQueue queue) {
        SHARED_QUEUES.put(queue.handle(), queue);
    }

    /** Stops handing events to {@code queue}, before it is destroyed. */
    static void unwatch(VerbsSharedReceiveQueue queue) {
        SHARED_QUEUES.remove(queue.handle(), queue);
    }

    /** Stops handing events to {@code loop}; the last loop out forgets the context. */
    void unsubscribe(VerbsEventLoop loop) {
        synchronized (BY_CONTEXT) {
            loops.remove(loop);
            if (loops.isEmpty()) {
                BY_CONTEXT.remove(context);
            }
        }
    }

    /** The context's async fd for the loops' {@code poll(2)}: negative once it fails, so that poll ignores it. */
    int fd() {
        return broken ? -1 : fd;
    }

    /**
     * Reads every event queued now and hands each to every subscribed loop: {@code reader} at once, the others
     * through their pollers. Returns how many there were.
     */
    int drain(VerbsEventLoop reader) {
        List<AsyncEvent> events = new ArrayList<>(1);
        synchronized (this) {
            int type;
            while ((type = NativeVerbs.getAsyncEvent(context, recordAddress, 0)) >= 0) {
                events.add(AsyncEvent.read(record));
            }
            if (type != NativeVerbs.AGAIN && !broken) {
                broken = true; // the device was disassociated: the fd stays readable and never yields an event
                LOG.warn("{}: reading asynchronous events failed (errno {}); no more are read", deviceName, -type);
            }
        }
        for (AsyncEvent event : events) {
            if (event.isFatal() && !event.isQueuePairError()) {
                LOG.warn("{}: {}: {}", deviceName, event, event.consequence());
            } else if (event.isFatal()) {
                // A peer can provoke these at will (one per forged rkey): the connection whose QP it names logs it
                // through the device's PeerFaultLog, a WARN line per peer address a minute.
                LOG.debug("{}: {}: {}", deviceName, event, event.consequence());
            } else {
                LOG.debug("{}: {}", deviceName, event);
            }
            if (event.isSharedReceiveQueueEvent()) {
                VerbsSharedReceiveQueue queue = SHARED_QUEUES.get(event.element());
                if (queue != null) {
                    queue.onDeviceEvent(event);
                }
                continue;
            }
            // The other loops get every event before the reader handles any: its handling may block for seconds (rxe
            // holds a QP's destruction while its tasks run), and must not hold theirs back.
            for (VerbsEventLoop loop : loops) {
                if (loop != reader) {
                    loop.execute(() -> loop.onDeviceEvent(event)); // false: that loop is closing anyway
                }
            }
        }
        if (loops.contains(reader)) {
            for (AsyncEvent event : events) {
                if (!event.isSharedReceiveQueueEvent()) {
                    reader.onDeviceEvent(event);
                }
            }
        }
        return events.size();
    }
}
